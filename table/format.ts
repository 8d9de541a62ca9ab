import { scanMembers } from '../lib/json-text.js';
import { lineText, printable } from '../lib/terminal-text.js';
import type { JsonValue } from '../lib/wire.js';
import { charWidth, displayWidth } from '../lib/display-width.js';

// Text for the table and the console: ages, summaries, clock times and cutting text to
// terminal columns. Pure: every time is passed in; widths come from display-width.

/** Replace control characters and bidi overrides (never sent to the terminal) with U+FFFD; keeps tabs and newlines. */
export { printable };

/** `text` cut (with an ellipsis) or padded with spaces to exactly `width` columns. */
export function fitText(text: string, width: number): string {
  if (width <= 0) return '';
  const clean = lineText(text);
  if (displayWidth(clean) <= width) return clean + ' '.repeat(width - displayWidth(clean));
  let out = '';
  let used = 0;
  for (const ch of clean) {
    const w = charWidth(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + '…' + ' '.repeat(width - 1 - used);
}

/** `text` right-aligned in `width` columns (cut like fitText when too long). */
export function fitRight(text: string, width: number): string {
  const w = displayWidth(text);
  return w >= width ? fitText(text, width) : ' '.repeat(width - w) + text;
}

/** An age as the table shows it: "4s", "2m05s", "3h", "2d"; negative ages count as 0. */
export function formatAge(ms: number): string {
  return formatDuration(ms, false);
}

/** An uptime: "42s", "3m12s", "5h07m", "2d03h" (a second unit past an hour); negative counts as 0. */
export function formatUptime(ms: number): string {
  return formatDuration(ms, true);
}

function formatDuration(ms: number, twoUnits: boolean): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${twoUnits ? `${pad(Math.floor(s / 60) % 60)}m` : ''}`;
  return `${Math.floor(s / 86400)}d${twoUnits ? `${pad(Math.floor(s / 3600) % 24)}h` : ''}`;
}

/** A poll interval for the header: "1s", "2.5s", "500ms". */
export function formatInterval(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Number((ms / 1000).toFixed(3))}s`;
}

/** A wall-clock time of day in UTC, like the envelopes' `ts`: "00:05:48Z". */
export function formatClock(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 19)}Z`;
}

const BARE = /^[\p{L}\p{N}_.:+\-/@#%]+$/u;

function scalar(value: JsonValue): string {
  if (typeof value === 'string') return BARE.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/** One part of a data summary: `key=value` of an object's member (with its key), or the whole value. */
export interface SummaryPart {
  key: string | undefined;
  text: string;
}

/**
 * The parts of `data`'s summary: objects as `key=value` pairs, strings bare when unambiguous,
 * the rest compact JSON. With `envelopeText` (the envelope as the daemon sent it) values are
 * shown as spelled (`-10.0`, every digit of `12345678901234567890`), members in their order.
 */
export function summaryParts(data: JsonValue, envelopeText?: string): SummaryPart[] {
  const dataText = envelopeText === undefined ? undefined : memberText(envelopeText, 'data');
  if (dataText !== undefined) return textParts(dataText);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return [{ key: undefined, text: scalar(data) }];
  const keys = Object.keys(data);
  if (keys.length === 0) return [{ key: undefined, text: '{}' }];
  return keys.map((k) => ({ key: k, text: `${BARE.test(k) ? k : JSON.stringify(k)}=${scalar(data[k]!)}` }));
}

/** One line for `data` (the parts of summaryParts joined by spaces). */
export function summarizeData(data: JsonValue, envelopeText?: string): string {
  return summaryParts(data, envelopeText).map((p) => p.text).join(' ');
}

/** summaryParts of data as JSON text: every value as spelled, strings bare when unambiguous. */
function textParts(dataText: string): SummaryPart[] {
  const members = scanMembers(dataText);
  if (members === undefined) return [{ key: undefined, text: scalarText(dataText) }];
  if (members.size === 0) return [{ key: undefined, text: '{}' }];
  return [...members].map(([k, span]) => ({ key: k, text: `${BARE.test(k) ? k : JSON.stringify(k)}=${scalarText(dataText.slice(span.start, span.end))}` }));
}

function scalarText(text: string): string {
  if (text.charCodeAt(0) !== 34) return text;
  const value = JSON.parse(text) as string;
  return BARE.test(value) ? value : text;
}

function memberText(objectText: string, key: string): string | undefined {
  const span = scanMembers(objectText)?.get(key);
  return span === undefined ? undefined : objectText.slice(span.start, span.end);
}

