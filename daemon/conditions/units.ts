// The properties a `[conditions]` mapping may name (ASCOM ObservingConditions', lower case),
// each with its canonical unit, and the one table of unit conversions: a mapping's `unit`
// names the unit its reading records, converted here to the property's canonical unit.
// Factors are the exact definitions (1 mph = 0.44704 m/s, 1 knot = 1852/3600 m/s,
// 1 mmHg = 1.33322387415 hPa, 1 inHg = 25.4 mmHg); degF and K are offsets.

/** Each property and its canonical unit (ASCOM ObservingConditions). */
export const CONDITION_PROPERTIES = {
  cloudcover: '%',
  dewpoint: 'degC',
  humidity: '%',
  pressure: 'hPa',
  rainrate: 'mm/h',
  skybrightness: 'lux',
  skyquality: 'mag/arcsec^2',
  skytemperature: 'degC',
  starfwhm: 'arcsec',
  temperature: 'degC',
  winddirection: 'degrees',
  windgust: 'm/s',
  windspeed: 'm/s',
} as const;

/** A property name. */
export type ConditionProperty = keyof typeof CONDITION_PROPERTIES;

/** A canonical unit. */
export type CanonicalUnit = (typeof CONDITION_PROPERTIES)[ConditionProperty];

interface Conversion {
  readonly to: CanonicalUnit;
  readonly convert: (x: number) => number;
}

const same = (x: number): number => x;

/** Every recorded unit a mapping may name: the canonical units themselves and the conversions to them. */
export const UNIT_CONVERSIONS: Readonly<Record<string, Conversion>> = {
  '%': { to: '%', convert: same },
  degC: { to: 'degC', convert: same },
  degF: { to: 'degC', convert: (x) => ((x - 32) * 5) / 9 },
  K: { to: 'degC', convert: (x) => x - 273.15 },
  hPa: { to: 'hPa', convert: same },
  mbar: { to: 'hPa', convert: same },
  Pa: { to: 'hPa', convert: (x) => x / 100 },
  kPa: { to: 'hPa', convert: (x) => x * 10 },
  mmHg: { to: 'hPa', convert: (x) => x * 1.33322387415 },
  inHg: { to: 'hPa', convert: (x) => x * 25.4 * 1.33322387415 },
  'mm/h': { to: 'mm/h', convert: same },
  'in/h': { to: 'mm/h', convert: (x) => x * 25.4 },
  lux: { to: 'lux', convert: same },
  'mag/arcsec^2': { to: 'mag/arcsec^2', convert: same },
  arcsec: { to: 'arcsec', convert: same },
  degrees: { to: 'degrees', convert: same },
  'm/s': { to: 'm/s', convert: same },
  'km/h': { to: 'm/s', convert: (x) => x / 3.6 },
  mph: { to: 'm/s', convert: (x) => x * 0.44704 },
  knots: { to: 'm/s', convert: (x) => (x * 1852) / 3600 },
};

/** Whether `name` is a property a mapping may name. */
export function isConditionProperty(name: string): name is ConditionProperty {
  return Object.hasOwn(CONDITION_PROPERTIES, name);
}

/** The recorded units that convert to `property`'s canonical unit. */
export function unitsFor(property: ConditionProperty): string[] {
  const to = CONDITION_PROPERTIES[property];
  return Object.keys(UNIT_CONVERSIONS).filter((unit) => UNIT_CONVERSIONS[unit]!.to === to);
}

/** `x` recorded in `unit` (one `unitsFor` the property gives), in the canonical unit. */
export function toCanonical(unit: string, x: number): number {
  return UNIT_CONVERSIONS[unit]!.convert(x);
}
