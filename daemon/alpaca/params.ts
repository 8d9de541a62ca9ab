import { AlpacaRequestError } from './errors.js';

// The parameters of one Alpaca request (the Alpaca API Reference, section 2.2): a GET's come
// from the query string and their names are case insensitive; a PUT's come from its
// application/x-www-form-urlencoded body and their names must be cased as the API
// definition spells them (a PUT's `clienttransactionid` is not ClientTransactionID).

const MAX_UINT32 = 4294967295;

/** The named parameters of one request, looked up as the reference says for its verb. */
export class AlpacaParams {
  private readonly values = new Map<string, string>();

  /** `caseInsensitive`: a GET's query; otherwise a PUT's form body. A name given twice is refused. */
  constructor(text: string, private readonly caseInsensitive: boolean) {
    for (const [name, value] of new URLSearchParams(text)) {
      const key = this.key(name);
      if (this.values.has(key)) throw new AlpacaRequestError(`parameter ${name} is given more than once`);
      this.values.set(key, value);
    }
  }

  /** The value of `name` as the API definition spells it, undefined when absent. */
  get(name: string): string | undefined {
    return this.values.get(this.key(name));
  }

  /** The value of a required parameter (absent: HTTP 400). */
  required(name: string): string {
    const value = this.get(name);
    if (value === undefined) throw new AlpacaRequestError(`parameter ${name} is required`);
    return value;
  }

  /** A required boolean: `true` or `false` in any casing. */
  bool(name: string): boolean {
    const value = this.required(name);
    const lower = value.toLowerCase();
    if (lower !== 'true' && lower !== 'false') throw new AlpacaRequestError(`parameter ${name} must be true or false; got ${JSON.stringify(value)}`);
    return lower === 'true';
  }

  /** A required number written with a period as the decimal separator (section 2.3.1). */
  number(name: string): number {
    const value = this.required(name);
    const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(n)) throw new AlpacaRequestError(`parameter ${name} must be a number; got ${JSON.stringify(value)}`);
    return n;
  }

  /** An optional unsigned 32-bit integer (ClientID, ClientTransactionID): 0 when absent, HTTP 400 when not one. */
  uint32(name: string): number {
    const value = this.get(name);
    if (value === undefined) return 0;
    if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_UINT32) {
      throw new AlpacaRequestError(`parameter ${name} must be an integer 0-${MAX_UINT32}; got ${JSON.stringify(value)}`);
    }
    return Number(value);
  }

  private key(name: string): string {
    return this.caseInsensitive ? name.toLowerCase() : name;
  }
}
