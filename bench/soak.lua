-- wrk script for bench/soak.sh: mixed traffic of one signed-in user. Each request is, by weight,
-- a read (a comments page, the profile, a view's items), a create (a comment, a form instance that
-- starts a workflow), a transition (each thread moves its own items intake -> review -> intake),
-- an avatar upload, or a module route (Tags). Answers are counted by class for done().
local counter = 0
local threads = {}
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local env = os.getenv
local headers, json = {}, {}
local items, n, k = {}, 0, 0
local payload, avatar, boundary
counts = { ok = 0, conflict = 0, limited = 0, unavailable = 0, other = 0 }

function init(args)
  for name, value in pairs(wrk.headers) do headers[name] = value; json[name] = value end
  json["Content-Type"] = "application/json"
  for line in io.lines(env("ITEMS_PREFIX") .. id .. ".txt") do items[#items + 1] = line end
  n = #items
  local file = assert(io.open(env("PAYLOAD_FILE"), "rb")); payload = file:read("*a"); file:close()
  file = assert(io.open(env("AVATAR_FILE"), "rb")); local png = file:read("*a"); file:close()
  boundary = "soak-boundary-" .. id
  avatar = "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"me.png\"\r\n" ..
    "Content-Type: image/png\r\n\r\n" .. png .. "\r\n--" .. boundary .. "--\r\n"
end

local space = env("SPACE")
local function transition()
  local item = items[(k % n) + 1]
  local forward = math.floor(k / n) % 2 == 0
  k = k + 1
  local view = forward and env("V1") or env("V2")
  local to = forward and env("TO_REVIEW") or env("BACK_TO_INTAKE")
  return wrk.format("POST", "/v0/workflows/items/" .. item .. "/transitions?workflowConfigurationId=" ..
    env("WF") .. "&viewId=" .. view, json, '{"transitionId":"' .. to .. '"}')
end

function request()
  local roll = math.random(100)
  if roll <= 30 then
    return wrk.format("GET", "/v0/spaces/" .. space .. "/comments?limit=20", headers)
  elseif roll <= 45 then
    return wrk.format("GET", "/v0/users/me", headers)
  elseif roll <= 55 then
    return wrk.format("GET", "/v0/workflows/views/" .. env("V1") .. "/items?workflowConfigurationId=" ..
      env("WF") .. "&limit=20", headers)
  elseif roll <= 70 then
    return wrk.format("POST", "/v0/spaces/" .. space .. "/comments", json, '{"body":"A soak comment of ordinary length."}')
  elseif roll <= 80 then
    return wrk.format("POST", "/v0/forms", json, payload)
  elseif roll <= 90 then
    return transition()
  elseif roll <= 95 then
    local form = {}
    for name, value in pairs(headers) do form[name] = value end
    form["Content-Type"] = "multipart/form-data; boundary=" .. boundary
    return wrk.format("POST", "/v0/media/users/me/avatar", form, avatar)
  else
    return wrk.format("GET", "/v0/spaces/" .. space .. "/modules/tags/items/item-" .. math.random(50) .. "/tags", headers)
  end
end

function response(status, hdrs, body)
  if status >= 200 and status < 300 then counts.ok = counts.ok + 1
  elseif status == 409 or status == 412 then counts.conflict = counts.conflict + 1
  elseif status == 429 then counts.limited = counts.limited + 1
  elseif status == 503 then counts.unavailable = counts.unavailable + 1
  else
    counts.other = counts.other + 1
    local key = "s" .. status
    counts[key] = (counts[key] or 0) + 1
  end
end

function done(summary, latency, requests)
  local total = { ok = 0, conflict = 0, limited = 0, unavailable = 0, other = 0 }
  for _, thread in ipairs(threads) do
    local c = thread:get("counts")
    for key, value in pairs(c) do total[key] = (total[key] or 0) + value end
  end
  io.write(string.format("answers: 2xx %d, 409/412 %d, 429 %d, 503 %d, other %d\n",
    total.ok, total.conflict, total.limited, total.unavailable, total.other))
  for key, value in pairs(total) do
    if key:sub(1, 1) == "s" then io.write(string.format("  other status %s: %d\n", key:sub(2), value)) end
  end
  io.write(string.format("throughput: %.0f requests/s; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
end
