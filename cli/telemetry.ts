#!/usr/bin/env -S node --max-semi-space-size=8
import { runCli } from './entry.js';

runCli('telemetry', '');
