// Validates one .glb/.gltf with the Khronos glTF validator (npm gltf-validator,
// pinned in package.json). Prints every issue and a summary; exits 1 when the
// file has errors (or cannot be read / validated), 0 otherwise.
//   node validate.mjs FILE.glb [--strict]   (--strict: warnings fail too)
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as validator from 'gltf-validator';

const SEVERITY = ['error', 'warning', 'info', 'hint'];

async function main(argv) {
  const strict = argv.includes('--strict');
  const files = argv.filter((a) => a !== '--strict');
  if (files.length !== 1) {
    console.error('usage: node validate.mjs FILE.glb [--strict]');
    return 2;
  }
  const file = files[0];
  let bytes;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    console.error(`${file}: cannot read: ${e.message}`);
    return 1;
  }
  let report;
  try {
    report = await validator.validateBytes(bytes, {
      uri: path.basename(file),
      maxIssues: 0, // report everything
      externalResourceFunction: (uri) =>
        Promise.reject(new Error(`external resource ${uri} refused: a .glb must be self-contained`)),
    });
  } catch (e) {
    console.error(`${file}: validator could not run: ${e}`);
    return 1;
  }
  const issues = report.issues;
  for (const m of issues.messages) {
    const sev = SEVERITY[m.severity] ?? `severity ${m.severity}`;
    const where = m.pointer ? ` at ${m.pointer}` : m.offset !== undefined ? ` at byte ${m.offset}` : '';
    console.log(`${sev}: ${m.code}${where}: ${m.message}`);
  }
  const info = report.info ?? {};
  console.log(
    `${file}: validator ${report.validatorVersion}: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ` +
      `${issues.numInfos} infos, ${issues.numHints} hints` +
      (info.generator ? ` (generator "${info.generator}", ${info.animationCount ?? 0} animations, ` +
        `${info.totalVertexCount ?? 0} vertices)` : ''),
  );
  if (issues.numErrors > 0) return 1;
  if (strict && issues.numWarnings > 0) return 1;
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
