/**
 * Which environment variables the code reads, found in its syntax (no process started): calls of
 * the config readers of `@tts/common` (`envInt(env, 'NAME', fallback)`, ...), `process.env['NAME']`
 * and `process.env.NAME`, destructuring of `process.env`, and `${NAME:-fallback}` in shell scripts.
 * A name given through a constant is followed to its string; one built by a template keeps `*` for
 * each substitution (`TTS_*_IDLE_UNLOAD_SEC`). A read whose name cannot be followed is reported,
 * so a new way of reading the environment cannot slip past the settings table's test.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** One read of one variable. */
export interface EnvRead {
  /** The variable; `*` stands for a part computed at run time. */
  readonly name: string;
  /** Where, as `path:line` from the repository root. */
  readonly at: string;
  /** The fallback when it is a literal (numbers as written without `_`, lists joined by `,`). */
  readonly fallback?: string;
}

/** What a scan found. */
export interface EnvScan {
  readonly reads: readonly EnvRead[];
  /** Reads whose variable name could not be followed to a string, as `path:line: code`. */
  readonly unresolved: readonly string[];
}

/** The readers of `@tts/common/config/env.ts`, with the argument index of their fallback. */
const READERS: Readonly<Record<string, number | undefined>> = {
  envString: 2,
  envOptional: undefined,
  envInt: 2,
  envNumber: 2,
  envBool: 2,
  envList: 2,
  envEnum: 3,
};

/** Every file under `dir` (recursively) that `keep` accepts; dependencies, builds and generated code left out. */
export function filesUnder(root: string, dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    for (const name of readdirSync(abs)) {
      if (['node_modules', 'dist', 'gen', 'generated'].includes(name)) continue;
      const p = join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (keep(relative(root, p))) out.push(relative(root, p));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/** Scans `files` (paths from `root`): TypeScript and JavaScript by syntax, shell scripts by `${NAME:-...}`. */
export function scanEnvReads(root: string, files: readonly string[]): EnvScan {
  const sources = files.map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
  const code = sources.filter((s) => /\.(ts|tsx|mjs|js)$/.test(s.file)).map((s) => ({ file: s.file, sf: ts.createSourceFile(s.file, s.text, ts.ScriptTarget.Latest, true) }));
  const exported = exportedStrings(code.map((c) => c.sf));
  const reads: EnvRead[] = [];
  const unresolved: string[] = [];
  for (const { file, sf } of code) scanSource(sf, file, exported, reads, unresolved);
  for (const { file, text } of sources.filter((s) => s.file.endsWith('.sh'))) scanShell(text, file, reads);
  return { reads, unresolved };
}

/** `export const NAME = 'string'` of every file: names a reader may be given by constant from another module. */
function exportedStrings(files: readonly ts.SourceFile[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const sf of files) {
    for (const statement of sf.statements) {
      if (!ts.isVariableStatement(statement) || !statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      for (const d of statement.declarationList.declarations) {
        const init = d.initializer === undefined ? undefined : unwrap(d.initializer);
        if (ts.isIdentifier(d.name) && init !== undefined && ts.isStringLiteral(init)) out.set(d.name.text, init.text);
      }
    }
  }
  return out;
}

function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isAsExpression(e) || ts.isParenthesizedExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

function scanSource(sf: ts.SourceFile, file: string, exported: ReadonlyMap<string, string>, reads: EnvRead[], unresolved: string[]): void {
  const at = (node: ts.Node): string => `${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
  const declarations = new Map<string, ts.Node[]>();
  const envCopies = new Set<string>();
  const collect = (node: ts.Node): void => {
    if ((ts.isVariableDeclaration(node) || ts.isParameter(node)) && ts.isIdentifier(node.name)) {
      declarations.set(node.name.text, [...(declarations.get(node.name.text) ?? []), node]);
      // `const base = { ...process.env }`: a copy of the environment, read like it.
      const init = node.initializer === undefined ? undefined : unwrap(node.initializer);
      if (init !== undefined && ts.isObjectLiteralExpression(init) && init.properties.some((p) => ts.isSpreadAssignment(p) && p.expression.getText(sf) === 'process.env')) envCopies.add(node.name.text);
    }
    ts.forEachChild(node, collect);
  };
  collect(sf);

  /** The names an expression may hold, or undefined when it cannot be followed. */
  const namesOf = (expr: ts.Expression, depth = 0): string[] | undefined => {
    const e = unwrap(expr);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text];
    if (ts.isTemplateExpression(e)) return [e.head.text + e.templateSpans.map((s) => `*${s.literal.text}`).join('')];
    if (depth > 4) return undefined;
    if (ts.isIdentifier(e)) {
      const found = (declarations.get(e.text) ?? []).flatMap((d) => namesOfDeclaration(d, depth) ?? []);
      if (found.length > 0) return found;
      const imported = exported.get(e.text);
      return imported === undefined ? undefined : [imported];
    }
    if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression)) {
      // OBJ.key, where `const OBJ = { key: 'NAME', ... }`
      for (const d of declarations.get(e.expression.text) ?? []) {
        const init = ts.isVariableDeclaration(d) && d.initializer !== undefined ? unwrap(d.initializer) : undefined;
        if (init === undefined || !ts.isObjectLiteralExpression(init)) continue;
        const prop = init.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText(sf) === e.name.text);
        if (prop !== undefined && ts.isPropertyAssignment(prop)) return namesOf(prop.initializer, depth + 1);
      }
    }
    return undefined;
  };
  const namesOfDeclaration = (d: ts.Node, depth: number): string[] | undefined => {
    if (!ts.isVariableDeclaration(d)) return undefined;
    if (d.initializer !== undefined) return namesOf(d.initializer, depth + 1);
    // for (const name of ['A', 'B'])
    const loop = d.parent.parent;
    if (ts.isForOfStatement(loop)) {
      const list = unwrap(loop.expression);
      if (ts.isArrayLiteralExpression(list)) {
        const names = list.elements.map((el) => namesOf(el, depth + 1));
        return names.every((n) => n !== undefined) ? names.flat() : undefined;
      }
    }
    return undefined;
  };
  const fallbackOf = (expr: ts.Expression | undefined): string | undefined => {
    if (expr === undefined) return undefined;
    const e = unwrap(expr);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
    if (ts.isNumericLiteral(e)) return e.getText(sf).replaceAll('_', '');
    if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(e.operand)) return `-${e.operand.getText(sf).replaceAll('_', '')}`;
    if (e.kind === ts.SyntaxKind.TrueKeyword) return 'true';
    if (e.kind === ts.SyntaxKind.FalseKeyword) return 'false';
    if (ts.isArrayLiteralExpression(e)) {
      const items = e.elements.map((el) => fallbackOf(el));
      return items.every((i) => i !== undefined) ? items.join(',') : undefined;
    }
    return undefined;
  };
  const isEnv = (e: ts.Expression): boolean => {
    const text = e.getText(sf);
    return text === 'process.env' || (ts.isIdentifier(e) && envCopies.has(e.text)) || /(^|\.)(env|\w+Env)$/.test(text);
  };
  const record = (node: ts.Node, nameExpr: ts.Expression, fallback?: string): void => {
    const names = namesOf(nameExpr);
    if (names === undefined) {
      unresolved.push(`${at(node)}: ${node.getText(sf)}`);
      return;
    }
    for (const name of names) reads.push({ name, at: at(node), ...(fallback !== undefined ? { fallback } : {}) });
  };
  /** `process.env['X'] ?? fallback` (or `||`): the fallback when it is a literal. */
  const orElse = (node: ts.Expression): string | undefined => {
    const p = node.parent;
    const or = [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken];
    return ts.isBinaryExpression(p) && p.left === node && or.includes(p.operatorToken.kind) ? fallbackOf(p.right) : undefined;
  };
  /** A write (`env[X] = ...`, `delete env[X]`) is not a read; `||=` and `??=` are. */
  const isWriteOnly = (node: ts.Node): boolean =>
    (ts.isBinaryExpression(node.parent) && node.parent.left === node && node.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) || ts.isDeleteExpression(node.parent);

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text in READERS && node.arguments.length >= 2) {
      const fallbackAt = READERS[node.expression.text];
      record(node, node.arguments[1] as ts.Expression, fallbackAt === undefined ? undefined : fallbackOf(node.arguments[fallbackAt]));
    } else if (ts.isElementAccessExpression(node) && isEnv(node.expression) && !isWriteOnly(node)) {
      record(node, node.argumentExpression, orElse(node));
    } else if (ts.isPropertyAccessExpression(node) && isEnv(node.expression) && /^[A-Z][A-Z0-9_]*$/.test(node.name.text) && !isWriteOnly(node)) {
      const fallback = orElse(node);
      reads.push({ name: node.name.text, at: at(node), ...(fallback !== undefined ? { fallback } : {}) });
    } else if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name) && node.initializer !== undefined && isEnv(unwrap(node.initializer))) {
      for (const el of node.name.elements) reads.push({ name: (el.propertyName ?? el.name).getText(sf), at: at(el) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

/** `${NAME:-fallback}` (and `${NAME-...}`) outside comments: the way the scripts read a variable that may be unset. */
function scanShell(text: string, file: string, reads: EnvRead[]): void {
  text.split('\n').forEach((line, i) => {
    if (line.trim().startsWith('#')) return;
    for (const m of line.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*):?-([^}]*)\}/g)) {
      const [, name = '', fallback = ''] = m;
      reads.push({ name, at: `${file}:${i + 1}`, ...(fallback.includes('$') ? {} : { fallback }) });
    }
  });
}
