import type { NetworkInterfaceInfo } from 'node:os';

// The names a client on the network may give for this machine, found once at start-up by the
// daemon's edge (daemon/main.ts) and handed to the guard through the config: the host name,
// `<hostname>.local` (mDNS), what the host name resolves to (Debian: 127.0.1.1) and the names
// those addresses resolve back to (the FQDN), and every interface address.

/** What finding the names asks of the system (os and dns in daemon/main.ts; anything in tests). */
export interface MachineProbe {
  hostname(): string;
  networkInterfaces(): NodeJS.Dict<NetworkInterfaceInfo[]>;
  /** The addresses a name resolves to (/etc/hosts, DNS). */
  lookup(name: string): Promise<string[]>;
  /** The name an address resolves back to. */
  reverse(address: string): Promise<string>;
}

/** How long a lookup may take (ms): a unit without DNS at night must still start at once. */
export const LOOKUP_MS = 2000;

/** This machine's names and addresses (not canonical, duplicates possible); a lookup that fails or takes over `lookupMs` adds nothing. */
export async function machineNames(probe: MachineProbe, lookupMs = LOOKUP_MS): Promise<string[]> {
  const names: string[] = [];
  const interfaces = Object.values(probe.networkInterfaces()).flatMap((list) => list ?? []);
  names.push(...interfaces.map((i) => i.address));
  const host = probe.hostname();
  if (host === '') return names;
  names.push(host, `${host}.local`);
  const addresses = await bounded(probe.lookup(host), [], lookupMs);
  names.push(...addresses);
  const reverse = await Promise.all(addresses.map((address) => bounded(probe.reverse(address), '', lookupMs)));
  names.push(...reverse.filter((name) => name !== ''));
  return names;
}

async function bounded<T>(work: Promise<T>, fallback: T, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => { timer = setTimeout(() => resolve(fallback), ms); });
  try {
    return await Promise.race([work.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}
