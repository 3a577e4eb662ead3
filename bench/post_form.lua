-- wrk script: POST the instance body in $BODY_FILE. wrk itself reports answers that are not 2xx.
-- With STOP_AFTER set, each thread stops sending after that many answers (to fill a database).
local file = assert(io.open(os.getenv("BODY_FILE"), "r"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"

local answers = 0
local stop_after = tonumber(os.getenv("STOP_AFTER") or "")
function response(status, headers, body)
  answers = answers + 1
  if stop_after and answers >= stop_after then wrk.thread:stop() end
end
