-- wrk script of the benchmark: cycles the POST bodies given in BENCH_BODIES (one per line)
-- or GETs BENCH_PATH (non-2xx/3xx answers are wrk's errors.status), and prints one BENCH_JSON line that scripts/bench/load.mjs reads.
local path = os.getenv("BENCH_PATH")
local bodies = {}
for line in string.gmatch(os.getenv("BENCH_BODIES") or "", "[^\n]+") do bodies[#bodies + 1] = line end
local i = 0

request = function()
  if #bodies == 0 then
    local inm = os.getenv("BENCH_INM") or ""
    local headers = {}
    if inm ~= "" then headers["If-None-Match"] = inm end
    return wrk.format("GET", path, headers)
  end
  i = i % #bodies + 1
  return wrk.format("POST", path, { ["Content-Type"] = "application/json" }, bodies[i])
end

done = function(summary, latency)
  io.write(string.format('BENCH_JSON {"requests":%d,"non2xx":%d,"errors":%d,"timeouts":%d,"micros":%d,"p50":%f,"p99":%f}\n',
    summary.requests, summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write,
    summary.errors.timeout, summary.duration, latency:percentile(50), latency:percentile(99)))
end
