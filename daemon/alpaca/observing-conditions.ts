import type { ConditionValue } from '../conditions/read.js';
import { CONDITION_PROPERTIES, type ConditionProperty } from '../conditions/units.js';
import { AlpacaDevice, type DeviceSpec, type Member } from './device.js';
import { ALPACA_ERROR, AlpacaDeviceError } from './errors.js';
import { RawJson } from './answer.js';

// The ObservingConditions device (IObservingConditionsV2) over the [conditions] mapping
// (daemon/conditions/): each mapped property in its ASCOM unit, as recorded when unconverted.
// Fail-safe: a property whose reading is stale is an error (0x501), never a value that looks
// fresh; one without a usable reading is 0x500; an unmapped one is NotImplemented (0x400).
// TimeSinceLastUpdate gives the age either way. Values are instantaneous: AveragePeriod is 0.

/** The ASCOM names of the properties (SensorName values, DeviceState names). */
export const SENSOR_NAMES: Readonly<Record<ConditionProperty, string>> = {
  cloudcover: 'CloudCover', dewpoint: 'DewPoint', humidity: 'Humidity', pressure: 'Pressure', rainrate: 'RainRate',
  skybrightness: 'SkyBrightness', skyquality: 'SkyQuality', skytemperature: 'SkyTemperature', starfwhm: 'StarFWHM',
  temperature: 'Temperature', winddirection: 'WindDirection', windgust: 'WindGust', windspeed: 'WindSpeed',
};

/** How each mapped property is described (SensorDescription), made once from the mapping. */
export type SensorDescriptions = ReadonlyMap<ConditionProperty, string>;

/** The ObservingConditions device 0: `read` gives the mapped properties now. */
export function observingConditions(read: () => ConditionValue[], descriptions: SensorDescriptions,
  common: Pick<DeviceSpec, 'driverInfo' | 'driverVersion' | 'now'>, uniqueId: string): AlpacaDevice {
  const connected = () => device.requireConnected();
  const members: Record<string, Member> = Object.fromEntries(Object.keys(CONDITION_PROPERTIES).map((p) => [p, propertyMember(p as ConditionProperty, read, connected)]));
  Object.assign(members, {
    averageperiod: {
      get: () => { connected(); return 0; },
      put: (params) => {
        const hours = params.number('AveragePeriod');
        connected();
        if (hours !== 0) throw new AlpacaDeviceError(ALPACA_ERROR.INVALID_VALUE, `AveragePeriod must be 0 (each reading is published as recorded, never averaged); got ${hours}`);
      },
    },
    refresh: { put: () => { connected(); } },
    sensordescription: { get: (params) => descriptions.get(sensorOf(params.required('SensorName'), descriptions)!) },
    timesincelastupdate: {
      get: (params) => {
        const name = params.required('SensorName') === '' ? undefined : sensorOf(params.required('SensorName'), descriptions);
        connected();
        const ages = read().filter((v) => name === undefined || v.property === name).map((v) => v.age_s).filter((a): a is number => a !== null);
        return ages.length === 0 ? -1 : Math.min(...ages);
      },
    },
  } satisfies Record<string, Member>);
  const device: AlpacaDevice = new AlpacaDevice({
    ...common,
    deviceType: 'ObservingConditions',
    number: 0,
    name: 'Meridian conditions',
    description: 'The observing conditions recorded by a Meridian telemetry daemon',
    interfaceVersion: 2,
    uniqueId,
    members,
    state: () => read().filter((v) => v.text !== null && !v.stale).map((v) => ({ Name: SENSOR_NAMES[v.property], Value: new RawJson(v.text!) })),
  });
  return device;
}

/** One property's GET: its value as recorded, or why not (unmapped 0x400, no value 0x500, stale 0x501). */
function propertyMember(name: ConditionProperty, read: () => ConditionValue[], connected: () => void): Member {
  return {
    get: () => {
      connected();
      const value = read().find((v) => v.property === name);
      if (!value) throw new AlpacaDeviceError(ALPACA_ERROR.NOT_IMPLEMENTED, `${SENSOR_NAMES[name]} is not mapped in [conditions]`);
      if (value.text === null) throw new AlpacaDeviceError(ALPACA_ERROR.NO_READING, `${SENSOR_NAMES[name]} has no value: ${value.reason ?? `no ${value.type} reading`}`);
      if (value.stale) throw new AlpacaDeviceError(ALPACA_ERROR.STALE_READING, `${SENSOR_NAMES[name]} is not published: ${value.reason ?? `${value.type} is stale`}`);
      return new RawJson(value.text);
    },
  };
}

/** The property a SensorName names (any casing): not a property InvalidValue (0x401), not mapped NotImplemented (0x400). */
function sensorOf(sensorName: string, descriptions: SensorDescriptions): ConditionProperty {
  const name = (Object.keys(SENSOR_NAMES) as ConditionProperty[]).find((p) => p === sensorName.toLowerCase());
  if (!name) {
    throw new AlpacaDeviceError(ALPACA_ERROR.INVALID_VALUE,
      `SensorName ${JSON.stringify(sensorName)} is not an ObservingConditions property (${Object.values(SENSOR_NAMES).join(', ')})`);
  }
  if (!descriptions.has(name)) throw new AlpacaDeviceError(ALPACA_ERROR.NOT_IMPLEMENTED, `${SENSOR_NAMES[name]} is not mapped in [conditions]`);
  return name;
}
