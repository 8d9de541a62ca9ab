import type { AlpacaDevice } from './device.js';

// The Alpaca Management API's JSON members (the Alpaca Management API v1): the API versions
// served, the server's description and the devices it serves. They take only ClientID and
// ClientTransactionID, by GET.

/** What the description answers. */
export interface ServerDescription {
  readonly serverName: string;
  readonly location: string;
  readonly version: string;
}

/** The Value of each management member, by its path. */
export function managementValues(description: ServerDescription, devices: readonly AlpacaDevice[]): Readonly<Record<string, () => unknown>> {
  return {
    '/management/apiversions': () => [1],
    '/management/v1/description': () => ({
      ServerName: description.serverName, Manufacturer: 'Meridian', ManufacturerVersion: description.version, Location: description.location,
    }),
    '/management/v1/configureddevices': () => devices.map((d) => ({
      DeviceName: d.spec.name, DeviceType: d.spec.deviceType, DeviceNumber: d.spec.number, UniqueID: d.spec.uniqueId,
    })),
  };
}

/** The plain HTML of GET /setup and each device's setup page: what serves here and where it is configured. */
export function setupPage(description: ServerDescription, devices: readonly AlpacaDevice[]): string {
  const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const rows = devices.map((d) => `<li>${escape(d.spec.deviceType)} ${d.spec.number}: ${escape(d.spec.name)} (${escape(d.spec.uniqueId)})</li>`).join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escape(description.serverName)}</title></head><body>`
    + `<h1>${escape(description.serverName)}</h1><p>Meridian ${escape(description.version)}: the safety verdict and observing conditions over ASCOM Alpaca.</p>`
    + `<ul>${rows}</ul><p>Configured in the [alpaca] and [conditions] sections of the daemon's config file (docs/configuration.md); nothing is set here.</p></body></html>`;
}
