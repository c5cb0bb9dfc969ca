-- wrk script: GET one user's day of events (the day given by WHEREABOUTS_DAY, seconds since 1970).
-- Optional pacing: WHEREABOUTS_DELAY_MS makes the connection wait that long between requests.
local token
local day = tonumber(os.getenv("WHEREABOUTS_DAY") or "1751328000")
local delay_ms = tonumber(os.getenv("WHEREABOUTS_DELAY_MS") or "0")

function delay()
  return delay_ms
end

function init(args)
  token = args[1]
end

function request()
  return wrk.format("GET", string.format("/events?fromTime=%d&toTime=%d&limit=100000", day, day + 86400),
    {["Authorization"] = token})
end
