-- wrk script: each request uploads one PDF of $UPLOAD_BYTES bytes (default 100 KiB) as a form attachment,
-- to the next path of $PATHS_FILE (one line per upload the instance still takes). Every body is different
-- (a counter in the PDF's first line), so no upload finds its bytes stored already. Thread k of the (two)
-- threads takes lines k+1, k+3, ...; wrk reports answers that are not 2xx.
local threads = 0
function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end

function init(args)
  paths = {}
  for line in io.lines(os.getenv("PATHS_FILE")) do paths[#paths + 1] = line end
  field = os.getenv("FIELD_ID")
  local size = tonumber(os.getenv("UPLOAD_BYTES") or "102400")
  filler = string.rep("x", size - 32) .. "\n%%EOF\n"
  next_path = index + 1
  counter = 0
  wrk.headers["Content-Type"] = "multipart/form-data; boundary=bench-boundary"
end

function request()
  local path = paths[math.min(next_path, #paths)]
  next_path = next_path + 2
  counter = counter + 1
  local pdf = string.format("%%PDF-1.4\n%% %d-%012d\n", index, counter) .. filler
  local body = "--bench-boundary\r\nContent-Disposition: form-data; name=\"fieldIds\"\r\n\r\n" .. field ..
    "\r\n--bench-boundary\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.pdf\"\r\n" ..
    "Content-Type: application/pdf\r\n\r\n" .. pdf .. "\r\n--bench-boundary--\r\n"
  return wrk.format("POST", path, nil, body)
end
