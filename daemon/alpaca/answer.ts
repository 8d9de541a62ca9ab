// The JSON body of every Alpaca answer with HTTP 200 (the Alpaca API Reference, section 2.7):
// `Value` (when the member returns one and succeeded), then ClientTransactionID,
// ServerTransactionID, ErrorNumber and ErrorMessage, keys cased as the reference says.

/** The transaction ids of one request. */
export interface Transaction {
  readonly clientTransactionId: number;
  readonly serverTransactionId: number;
}

/** A value already spelled as JSON (a recorded number, kept as spelled). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A successful answer; `value` undefined for a member that returns nothing (a PUT). */
export function okAnswer(tx: Transaction, value?: unknown): string {
  const head = value === undefined ? '' : `"Value":${valueText(value)},`;
  return `{${head}"ClientTransactionID":${tx.clientTransactionId},"ServerTransactionID":${tx.serverTransactionId},"ErrorNumber":0,"ErrorMessage":""}`;
}

/** An answer carrying an Alpaca error number and its message. */
export function errorAnswer(tx: Transaction, number: number, message: string): string {
  return `{"ClientTransactionID":${tx.clientTransactionId},"ServerTransactionID":${tx.serverTransactionId},"ErrorNumber":${number},"ErrorMessage":${JSON.stringify(message)}}`;
}

/** JSON text of a value, RawJson members (at any depth of arrays and objects) as spelled. */
function valueText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(valueText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${valueText(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
