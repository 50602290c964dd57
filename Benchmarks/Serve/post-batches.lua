-- wrk script: POST batches of events to /v1/events, cycling through the bodies in BODIES_FILE (one
-- batch per line, each a JSON array), and count the events sent.
local bodies = {}
local events_per_body = tonumber(os.getenv("EVENTS_PER_BATCH") or "100")

function init(args)
  for line in io.lines(os.getenv("BODIES_FILE")) do bodies[#bodies + 1] = line end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  counter = 0
end

function request()
  counter = counter + 1
  return wrk.format(nil, "/v1/events", nil, bodies[(counter % #bodies) + 1])
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("events/s %.0f\n", summary.requests * events_per_body / seconds))
  io.write(string.format("non-2xx %d\n", summary.errors.status))
end
