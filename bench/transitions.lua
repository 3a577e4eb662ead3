-- wrk script: each thread walks its own items; request k moves item k mod n forward (intake ->
-- review, through the intake view) in even rounds and back (through the review view) in odd
-- rounds, so no two requests in flight touch the same item. wrk reports answers that are not 2xx.
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

local items, n, k = {}, 0, 0
local headers = {}
function init(args)
  -- wrk.format uses the headers it is given instead of the -H ones, so both go in.
  for name, value in pairs(wrk.headers) do headers[name] = value end
  headers["Content-Type"] = "application/json"
  for line in io.lines(os.getenv("ITEMS_PREFIX") .. id .. ".txt") do
    items[#items + 1] = line
  end
  n = #items
end

function request()
  local item = items[(k % n) + 1]
  local forward = math.floor(k / n) % 2 == 0
  k = k + 1
  local view = forward and os.getenv("V1") or os.getenv("V2")
  local transition = forward and os.getenv("TO_REVIEW") or os.getenv("BACK_TO_INTAKE")
  local path = "/v0/workflows/items/" .. item .. "/transitions?workflowConfigurationId=" .. os.getenv("WF") .. "&viewId=" .. view
  return wrk.format("POST", path, headers, '{"transitionId":"' .. transition .. '"}')
end

