/**
 * The secrets-in-logs scan: finds, in log text, the platform's credentials by their formats (API
 * keys, administrator keys, studio sessions, web job tokens, challenge passes, model-hub tokens,
 * speech WebSocket tokens)
 * and the passwords and administrator keys the tests use (string literals of the test sources).
 * scripts/test.sh runs it over TTS_TEST_LOG_DIR once every test has run:
 *
 *   node --conditions=@tts/source --import tsx tests/support/secret-scan.ts <log dir>
 *
 * and fails the run when anything is found (printed masked, with its file and line), or when it
 * finds no log at all (the capture is broken). The administrator key a first embedded start prints
 * once to its terminal is the one line allowed to carry a secret.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A secret found: its kind, where, and a masked excerpt. */
export interface SecretFinding {
  readonly kind: string;
  readonly file: string;
  readonly line: number;
  readonly masked: string;
}

/** The credential formats of the platform (the full secret, never its public prefix or a mask). */
export const SECRET_PATTERNS: Readonly<Record<string, RegExp>> = {
  // tts_<key_id>_<secret>: the key id alone (`tts_<key_id>`) is public and may be logged.
  api_key: /\btts_[a-z0-9]{16}_[A-Za-z0-9]{40}\b/g,
  admin_key: /\btts_admin_[A-Za-z0-9]{43}\b/g,
  test_admin_key: /\btest-admin-[0-9a-f]{32}\b/g,
  studio_session: /\bsst_[A-Za-z0-9]{43}\b/g,
  // <job_id>.<expires_unix>.<hmac>
  job_token: /\b[A-Za-z0-9_-]{8,64}\.\d{10}\.[A-Za-z0-9_-]{43}\b/g,
  // p1.<pass_id>.<expires_unix>.<mac>
  challenge_pass: /\bp1\.[A-Za-z0-9_-]{10,}\.\d{10}\.[A-Za-z0-9_-]{20,}/g,
  hub_token: /\bhf_[A-Za-z0-9]{20,}\b/g,
  // wst_<32 random bytes, base64url>: a speech WebSocket token.
  stream_token: /\bwst_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
};

/** Shortest literal taken from the test sources (shorter ones would match ordinary words). */
const MIN_LITERAL = 8;

/**
 * The passwords and administrator keys written as literals in `sources` (test files): values of
 * `password`, `new_password`, `current_password`, `PASSWORD`, `adminKey` and `TTS_ADMIN_KEY`.
 */
export function testLiterals(sources: readonly string[]): string[] {
  const found = new Set<string>();
  const literal = /\b(?:password|new_password|current_password|PASSWORD|adminKey|TTS_ADMIN_KEY)['"]?\s*[:=]\s*'([^'\n]+)'/g;
  for (const text of sources) {
    for (const m of text.matchAll(literal)) {
      const value = m[1]!.trim();
      // ('aaaaaaaaaaaaaaaa', a refused weak password, is no secret and could be anything's filler.)
      if (value.length >= MIN_LITERAL && new Set(value).size >= 4) found.add(value);
    }
  }
  return [...found];
}

/**
 * The one line meant to carry a secret: the administrator key a first embedded start prints to its
 * terminal (not a log record), once.
 */
const SHOWN_ONCE = /^Administrator key \(shown once; stored in [^)]*\): \S+$/;

const mask = (secret: string): string => `${secret.slice(0, 6)}…(${secret.length} characters)`;

/** The secrets in `text` (of `file`): each pattern, and each of `literals` found as it is. */
export function findSecrets(text: string, file: string, literals: readonly string[] = []): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const lines = text.split('\n');
  lines.forEach((content, i) => {
    if (SHOWN_ONCE.test(content)) return;
    for (const [kind, pattern] of Object.entries(SECRET_PATTERNS)) {
      for (const m of content.matchAll(pattern)) findings.push({ kind, file, line: i + 1, masked: mask(m[0]) });
    }
    for (const l of literals) if (content.includes(l)) findings.push({ kind: 'test_literal', file, line: i + 1, masked: mask(l) });
  });
  return findings;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** The test sources of the repository (tests/ and the unit specs next to the code). */
export function testSources(root: string): string[] {
  const dirs = ['tests', 'facade/src', 'services', 'scripts'].map((d) => path.join(root, d));
  return dirs
    .flatMap((d) => (statSync(d, { throwIfNoEntry: false })?.isDirectory() ? filesUnder(d) : []))
    .filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`) && /\.test\.ts$|[/\\]tests[/\\].*\.ts$/.test(f))
    .map((f) => readFileSync(f, 'utf8'));
}

/** Scans every file under `dir` with the patterns and the literals of `root`'s test sources. */
export function scanLogDir(dir: string, root: string): { files: number; bytes: number; findings: SecretFinding[] } {
  const literals = testLiterals(testSources(root));
  const files = filesUnder(dir);
  let bytes = 0;
  const findings = files.flatMap((f) => {
    const text = readFileSync(f, 'utf8');
    bytes += text.length;
    return findSecrets(text, path.relative(dir, f), literals);
  });
  return { files: files.length, bytes, findings };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (dir === undefined) {
    console.error('usage: secret-scan.ts <log dir>');
    process.exit(2);
  }
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const { files, bytes, findings } = scanLogDir(dir, root);
  for (const f of findings.slice(0, 50)) console.log(`${f.file}:${f.line}: ${f.kind} ${f.masked}`);
  console.log(`secrets in logs: ${findings.length} found in ${files} files (${(bytes / 1e6).toFixed(1)} MB)`);
  process.exit(findings.length > 0 || files === 0 ? 1 : 0);
}
