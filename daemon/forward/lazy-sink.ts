import { scrubberOf } from './secrets.js';
import { errorText, SinkRejection, type Sink, type SinkSpec } from './sink.js';
import type { AlarmAtDelivery } from './notify.js';

// A sink's client library (mqtt.js, pg, got) is loaded when the sink first sends: loaded,
// each costs a daemon 14-25 MB of memory, and a daemon without that sink never needs it.
// Every error leaving the sink is scrubbed of its secrets (the libraries quote URLs, peers
// echo headers): what the forwarder logs, shows in /status or writes as a dead letter is safe.

/**
 * The sink of `spec` for the unit `unit` (`instance`: this daemon's run, for the fleet's units
 * table), its module imported on first use (a failed import is tried again on the next send).
 */
export function lazySink(spec: SinkSpec, unit: { id: string; instance: string }, current: (type: string) => string | undefined,
  alarmState?: (id: string) => AlarmAtDelivery | undefined): Sink {
  let loading: Promise<Sink> | undefined;
  // the sink once its module is loaded (prepare is synchronous: it works only from then on)
  let loaded: Sink | undefined;
  // the forwarder's listener, handed to the sink once it is loaded
  let reset: (() => void) | undefined;
  let clash: ((text: string) => void) | undefined;
  const scrub = scrubberOf(spec);
  const sink = () => {
    loading ??= load(spec, unit, current, alarmState).then((s) => {
      if (reset) s.onPeerReset?.(reset);
      if (clash) s.onClash?.(clash);
      return (loaded = s);
    }, (error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  return {
    send: async (records, signal, extra) => {
      try {
        await (await sink()).send(records, signal, extra);
      } catch (error) {
        // a new error of the same kind, without the cause (it may quote the URL)
        const text = scrub(errorText(error));
        throw error instanceof SinkRejection ? new SinkRejection(text) : new Error(text);
      }
    },
    prepare: (records) => {
      // a failure here is the send's to report (it does the same work again)
      try {
        loaded?.prepare?.(records);
      } catch {
        // nothing prepared
      }
    },
    onPeerReset: (listener) => {
      reset = listener;
      loaded?.onPeerReset?.(listener);
    },
    onClash: (listener) => {
      clash = listener;
      loaded?.onClash?.(listener);
    },
    close: async () => {
      if (loading) await (await loading.catch(() => undefined))?.close();
    },
  };
}

async function load(spec: SinkSpec, unit: { id: string; instance: string }, current: (type: string) => string | undefined,
  alarmState?: (id: string) => AlarmAtDelivery | undefined): Promise<Sink> {
  switch (spec.kind) {
    case 'mqtt': return (await import('./mqtt.js')).mqttSink(spec, unit, current);
    case 'postgres': return (await import('./postgres.js')).postgresSink(spec, unit.id, unit.instance);
    case 'http': return spec.notify ? (await import('./notify.js')).notifySink(spec, unit.id, alarmState) : (await import('./http.js')).httpSink(spec, unit);
  }
}
