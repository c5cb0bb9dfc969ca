-- wrk script: GET one user's day of events (the day given by WHEREABOUTS_DAY, seconds since 1970).
local token
local day = tonumber(os.getenv("WHEREABOUTS_DAY") or "1751328000")

function init(args)
  token = args[1]
end

function request()
  return wrk.format("GET", string.format("/events?fromTime=%d&toTime=%d&limit=100000", day, day + 86400),
    {["Authorization"] = token})
end
