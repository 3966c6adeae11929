import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
let t0 = performance.now();
const tar = await readFile('/tmp/tts-pglite-initdb-template-v1.tar');
const pg = await PGlite.create({ loadDataDir: new Blob([tar]) });
console.log('load', performance.now() - t0);
t0 = performance.now();
const pg2 = await PGlite.create();
console.log('fresh', performance.now() - t0);
