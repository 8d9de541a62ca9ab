// The two ways an Alpaca request fails (the Alpaca API Reference, section 2.5): a request
// that is not understood (bad path, method, device number or parameter) is answered HTTP 400
// with a plain-text sentence; a request understood but not carried out is answered HTTP 200
// with an ErrorNumber and ErrorMessage in the JSON body (section 2.8).

/** The Alpaca error numbers Meridian answers (reserved ones: section 2.8.3; 0x500 on: Meridian's own). */
export const ALPACA_ERROR = {
  /** A property or method this device does not implement (an unmapped ObservingConditions property, Action, Command*). */
  NOT_IMPLEMENTED: 0x400,
  /** A value outside what the member accepts (an AveragePeriod other than 0, an unknown SensorName). */
  INVALID_VALUE: 0x401,
  /** The device is read while not connected. */
  NOT_CONNECTED: 0x407,
  /** A mapped ObservingConditions property without a usable reading (none, its field missing or not a number). */
  NO_READING: 0x500,
  /** A mapped ObservingConditions property whose reading is stale (past its max age). */
  STALE_READING: 0x501,
} as const;

/** A request understood but not carried out: HTTP 200 with this error number and message. */
export class AlpacaDeviceError extends Error {
  readonly number: number;

  constructor(number: number, message: string) {
    super(message);
    this.name = 'AlpacaDeviceError';
    this.number = number;
  }
}

/** A request not understood: HTTP 400 with this sentence as plain text. */
export class AlpacaRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AlpacaRequestError';
  }
}
