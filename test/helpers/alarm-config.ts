import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './tmp.js';

// Alarm configurations and sites the alarm tests share.

/** A latched critical alarm on mains power and a warning on dew, as alarms-durable and tui-alarms use them. */
export const POWER_AND_DEW = `
[[alarm]]
id = "power"
severity = "critical"
when = "power.data.v < 200"
clear = "power.data.v > 210"
latch = true
message = "mains lost"

[[alarm]]
id = "dew"
severity = "warning"
when = "weather.data.dd < 2"
message = "dew close"
`;

/** A temporary directory with `config` written as meridian.toml, the site directory in it, its alarm state file, and the daemon's args. */
export function alarmSite(config: string): { dir: string; site: string; file: string; args: string[] } {
  const dir = tempDir();
  const configFile = path.join(dir, 'meridian.toml');
  fs.writeFileSync(configFile, config);
  const site = path.join(dir, 'site');
  return { dir, site, file: path.join(site, '.meridian', 'alarms.json'), args: ['--config', configFile] };
}
