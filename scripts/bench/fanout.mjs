import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.mjs';
import { eventBodies } from './payload.mjs';
import { startDaemon } from './servers.mjs';

// Stream fan-out: 100 /stream subscribers of every type (one process, on the load CPU) while events are
// posted at 2,000/s: delivery latency p50/p99 (receipt - the envelope's ts), and what the
// subscribers cost POST /event: the same paced load, and an unpaced one, with and without them.

const HERE = path.dirname(fileURLToPath(import.meta.url));

function startSubscribers(url, count, pin) {
  const argv = [...pin, process.execPath, path.join(HERE, 'subscribers.mjs'), url, String(count), ''];
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  const live = new Promise((resolve) => {
    const check = () => { if (out.includes('LIVE\n')) resolve(); else child.stdout.once('data', check); };
    check();
  });
  return {
    live,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
      return JSON.parse(out.split('\n').filter((l) => l.startsWith('{')).at(-1));
    },
  };
}

/** Run the fan-out benchmark on its own daemon; returns its figures. */
export async function fanoutBench({ tmp, pin, loadPin, seconds, subscribers, rate, log }) {
  const d = await startDaemon({ siteDir: path.join(tmp, 'site-fanout'), pin });
  const bodies = eventBodies();
  const paced = () => runLoad({ url: d.url, path: '/event', connections: 16, seconds, bodies, rate }, { pin: loadPin });
  const unpaced = () => runLoad({ url: d.url, path: '/event', connections: 16, seconds, bodies }, { pin: loadPin });
  try {
    const alone = { paced: await paced(), unpaced: await unpaced() };
    const subs = startSubscribers(d.url, subscribers, loadPin);
    await subs.live;
    const withSubs = { paced: await paced() };
    const delivery = await subs.stop();
    const again = startSubscribers(d.url, subscribers, loadPin);
    await again.live;
    withSubs.unpaced = await unpaced();
    await again.stop();
    const figures = {
      subscribers, rate, typesPosted: bodies.length, deliveredEvents: delivery.events, deliveryP50Ms: delivery.p50, deliveryP99Ms: delivery.p99,
      alone: { pacedP99: alone.paced.p99, pacedRps: alone.paced.rps, unpacedRps: alone.unpaced.rps, unpacedP99: alone.unpaced.p99 },
      withSubscribers: { pacedP99: withSubs.paced.p99, pacedRps: withSubs.paced.rps, unpacedRps: withSubs.unpaced.rps, unpacedP99: withSubs.unpaced.p99 },
    };
    figures.unpacedRatio = figures.withSubscribers.unpacedRps / figures.alone.unpacedRps;
    figures.pacedP99Ratio = figures.withSubscribers.pacedP99 / figures.alone.pacedP99;
    log(`  fan-out: ${subscribers} subscribers of every type, ${rate} events/s: delivery p50 ${delivery.p50} ms p99 ${delivery.p99} ms (${delivery.events} deliveries); ` +
      `POST max ${alone.unpaced.rps.toFixed(0)} -> ${withSubs.unpaced.rps.toFixed(0)} req/s (${figures.unpacedRatio.toFixed(2)}x), paced p99 ${alone.paced.p99.toFixed(2)} -> ${withSubs.paced.p99.toFixed(2)} ms`);
    return figures;
  } finally {
    await d.stop();
  }
}
