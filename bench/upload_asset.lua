-- wrk script: each request uploads the multipart body in $BODY_FILE to the next asset path of
-- $PATHS_FILE (one announced asset per line). Thread k of the (two) threads takes lines k+1, k+3,
-- ..., so no asset is sent twice; wrk reports answers that are not 2xx (a thread that runs out of
-- paths gets 409s).
local threads = 0
function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end

function init(args)
  paths = {}
  for line in io.lines(os.getenv("PATHS_FILE")) do paths[#paths + 1] = line end
  local file = assert(io.open(os.getenv("BODY_FILE"), "rb"))
  body = file:read("*a")
  file:close()
  next_path = index + 1
  wrk.headers["Content-Type"] = "multipart/form-data; boundary=bench-boundary"
end

function request()
  local path = paths[math.min(next_path, #paths)]
  next_path = next_path + 2
  return wrk.format("POST", path, nil, body)
end
