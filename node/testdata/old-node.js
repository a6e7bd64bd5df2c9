'use strict';
// --require before the preload: process.version reads OFFTOP_FAKE_VERSION.
Object.defineProperty(process, 'version', { value: process.env.OFFTOP_FAKE_VERSION });
