import type { NetworkInterfaceInfo } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { machineNames, type MachineProbe } from '../daemon/machine-names.js';

// The names the daemon's edge finds for its machine (issue 22), with the system replaced by
// a probe: a Debian unit, a lookup that fails, one that never answers.

const iface = (address: string) => ({ address }) as NetworkInterfaceInfo;
const NEVER = new Promise<never>(() => {});

function probe(lookup: MachineProbe['lookup'], reverse: MachineProbe['reverse'] = async () => 'unit-7.example.org'): MachineProbe {
  return {
    hostname: () => 'unit-7',
    networkInterfaces: () => ({ lo: [iface('127.0.0.1'), iface('::1')], eth0: [iface('192.0.2.2'), iface('fe80::1')] }),
    lookup, reverse,
  };
}

const INTERFACES = ['127.0.0.1', '::1', '192.0.2.2', 'fe80::1'];

// [name, probe, names]
const ROWS: Array<[string, MachineProbe, string[]]> = [
  ['a Debian unit: 127.0.1.1 and its FQDN', probe(async () => ['127.0.1.1']), [...INTERFACES, 'unit-7', 'unit-7.local', '127.0.1.1', 'unit-7.example.org']],
  ['the host name does not resolve', probe(async () => { throw new Error('ENOTFOUND'); }), [...INTERFACES, 'unit-7', 'unit-7.local']],
  ['the lookup never answers', probe(() => NEVER), [...INTERFACES, 'unit-7', 'unit-7.local']],
  ['the reverse lookup fails', probe(async () => ['127.0.1.1'], async () => { throw new Error('ENOTFOUND'); }),
    [...INTERFACES, 'unit-7', 'unit-7.local', '127.0.1.1']],
  ['the reverse lookup never answers', probe(async () => ['127.0.1.1'], () => NEVER), [...INTERFACES, 'unit-7', 'unit-7.local', '127.0.1.1']],
];

for (const [name, p, expected] of ROWS) {
  test(`machineNames: ${name}`, async () => {
    assert.equal(await machineNames(p, 50), expected);
  });
}

test.run();
