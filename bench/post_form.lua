-- wrk script: POST the instance body in $BODY_FILE; counts non-201 answers.
local file = assert(io.open(os.getenv("BODY_FILE"), "r"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"

local failures = 0
function response(status, headers, body)
  if status ~= 201 then failures = failures + 1 end
end

function done(summary, latency, requests)
  io.write(string.format("non-201 answers (last thread): %d\n", failures))
end
