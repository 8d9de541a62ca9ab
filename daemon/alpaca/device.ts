import { ALPACA_ERROR, AlpacaDeviceError } from './errors.js';
import type { AlpacaParams } from './params.js';

// One ASCOM device served over Alpaca: its identity, its members by verb, and the members
// every device answers (the Alpaca Device API's "Methods Common To All Devices", Platform 7:
// Connect/Disconnect/Connecting and DeviceState included). Its connected state lives in the
// instance (one per daemon), shared by every client as an ASCOM hub's is.

/** One member's handler: the request's parameters in, the `Value` out (undefined: none). */
export type MemberCall = (params: AlpacaParams) => unknown;

/** A member's handlers by HTTP verb. */
export interface Member {
  readonly get?: MemberCall;
  readonly put?: MemberCall;
}

/** One `{"Name","Value"}` entry of DeviceState. */
export interface StateValue {
  readonly Name: string;
  readonly Value: unknown;
}

/** What a device type adds to the common members. */
export interface DeviceSpec {
  /** The device type as the management API spells it (`SafetyMonitor`); its path segment is the lower-cased form. */
  readonly deviceType: string;
  readonly number: number;
  readonly name: string;
  readonly description: string;
  readonly driverInfo: string;
  readonly driverVersion: string;
  readonly interfaceVersion: number;
  readonly uniqueId: string;
  /** The type's own members (lower-case names). */
  readonly members: Readonly<Record<string, Member>>;
  /** The operational state for DeviceState, without TimeStamp (only what is known). */
  readonly state: () => StateValue[];
  /** The wall clock (ms), for DeviceState's TimeStamp. */
  readonly now: () => number;
}

/** A served device: its spec and every member it answers, common ones included. */
export class AlpacaDevice {
  private connected = false;
  readonly members: Readonly<Record<string, Member>>;

  constructor(readonly spec: DeviceSpec) {
    this.members = { ...this.commonMembers(), ...spec.members };
  }

  /** The path segment of its type (`safetymonitor`). */
  get pathType(): string {
    return this.spec.deviceType.toLowerCase();
  }

  /** Throw NotConnected unless a client connected the device. */
  requireConnected(): void {
    if (!this.connected) throw new AlpacaDeviceError(ALPACA_ERROR.NOT_CONNECTED, `${this.spec.name} is not connected: connect it first`);
  }

  private commonMembers(): Record<string, Member> {
    const s = this.spec;
    const notImplemented = (what: string, required: string[]): Member => ({
      put: (params) => {
        for (const name of required) params.required(name);
        if (required.includes('Raw')) params.bool('Raw');
        throw new AlpacaDeviceError(ALPACA_ERROR.NOT_IMPLEMENTED, `${what} is not implemented by ${s.name}`);
      },
    });
    return {
      connected: {
        get: () => this.connected,
        put: (params) => { this.connected = params.bool('Connected'); },
      },
      connecting: { get: () => false },
      connect: { put: () => { this.connected = true; } },
      disconnect: { put: () => { this.connected = false; } },
      description: { get: () => s.description },
      driverinfo: { get: () => s.driverInfo },
      driverversion: { get: () => s.driverVersion },
      interfaceversion: { get: () => s.interfaceVersion },
      name: { get: () => s.name },
      supportedactions: { get: () => [] },
      action: notImplemented('Action', ['Action', 'Parameters']),
      commandblind: notImplemented('CommandBlind', ['Command', 'Raw']),
      commandbool: notImplemented('CommandBool', ['Command', 'Raw']),
      commandstring: notImplemented('CommandString', ['Command', 'Raw']),
      devicestate: {
        get: () => {
          this.requireConnected();
          return [...s.state(), { Name: 'TimeStamp', Value: new Date(s.now()).toISOString() }];
        },
      },
    };
  }
}
