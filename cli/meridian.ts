#!/usr/bin/env node
import { runCli } from './entry.js';

runCli('meridian', 'telemetry ');
