-- wrk script: one OwnTracks location a POST /pub, as the OwnTracks app sends it (HTTP mode,
-- Basic authentication). The arguments are whole Authorization values ("Basic …", user:token in
-- base64), taken round robin. Optional pacing: WHEREABOUTS_DELAY_MS, as in post-event.lua.
local authorizations = {}
local counter = 0
local delay_ms = tonumber(os.getenv("WHEREABOUTS_DELAY_MS") or "0")

function init(args)
  for i, value in ipairs(args) do authorizations[i] = value end
  counter = math.random(1, 1000000)
end

function delay()
  return delay_ms
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"_type":"location","tid":"ph","lat":%.6f,"lon":%.6f,"acc":8,"tst":%d,"batt":80}',
    46.5 + (counter % 1000) / 100000, 6.6 + (counter % 777) / 100000, 1763700000 + counter)
  return wrk.format("POST", "/pub", {["Authorization"] = authorizations[(counter % #authorizations) + 1],
    ["Content-Type"] = "application/json", ["X-Limit-D"] = "phone"}, body)
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
  end
end
