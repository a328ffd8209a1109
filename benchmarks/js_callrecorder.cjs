// Record the call graph of a Node.js run: loaded with `node --require` (NODE_OPTIONS, so
// child processes such as `node --test` workers record too), it rewrites each project file
// as it is loaded so that every function reports its own entry, and at that moment reads
// the caller's call site from the V8 stack (the frame below the callee). Only a call whose
// call site is a call or `new` expression in a project file counts: a getter, a setter, an
// iterator step or a callback invoked by Node or by a dependency is no call a reader of the
// caller's code sees, and a static call graph is not asked for it.
//
// Environment: ZNT_CG_ROOT (project folder), ZNT_CG_OUT (folder for one JSON per process),
// ZNT_CG_ACORN (path of the acorn package). Written for benchmarks/callgraph_inputs.py; the
// JSON holds, per project file, its function spans and the positions of its call
// expressions, and the recorded (callee span, call site) pairs.
"use strict";
const fs = require("fs");
const path = require("path");
const Module = require("module");

const ROOT = path.resolve(process.env.ZNT_CG_ROOT || process.cwd());
const OUT = process.env.ZNT_CG_OUT;
const acorn = require(process.env.ZNT_CG_ACORN || "acorn");

const files = {}; // rel -> {functions: [span], calls: ["line:col"]}
const seen = new Set(); // "calleeSpan|rel:line:col"
const edges = [];

function rel(filename) {
  if (!filename) return null;
  if (filename.startsWith("file://")) filename = filename.slice(7);
  const r = path.relative(ROOT, filename);
  if (r.startsWith("..") || path.isAbsolute(r) || r.split(path.sep).includes("node_modules")) {
    return null;
  }
  return r.split(path.sep).join("/");
}

function walk(node, visit, parent) {
  if (!node || typeof node.type !== "string") return;
  visit(node, parent);
  for (const key of Object.keys(node)) {
    if (key === "loc") continue;
    const v = node[key];
    if (Array.isArray(v)) {
      for (const c of v) if (c && typeof c.type === "string") walk(c, visit, node);
    } else if (v && typeof v.type === "string") {
      walk(v, visit, node);
    }
  }
}

// The position V8 reports for a call: the property of `a.b()`, the callee of `f()`,
// the `new` of `new F()`.
function callPosition(node) {
  if (node.type === "NewExpression") return node.loc.start;
  let callee = node.callee;
  while (callee.type === "ParenthesizedExpression" || callee.type === "ChainExpression") {
    callee = callee.expression;
  }
  if (callee.type === "MemberExpression") return callee.property.loc.start;
  return callee.loc.start;
}

function span(node) {
  return `${node.loc.start.line}:${node.loc.start.column + 1}:${node.loc.end.line}:${node.loc.end.column + 1}`;
}

function instrument(source, r) {
  let ast;
  const options = { ecmaVersion: "latest", locations: true, allowHashBang: true };
  try {
    ast = acorn.parse(source, { ...options, sourceType: "script", allowReturnOutsideFunction: true });
  } catch (e) {
    try {
      ast = acorn.parse(source, { ...options, sourceType: "module" });
    } catch (e2) {
      return source;
    }
  }
  const info = { functions: [], calls: [] };
  const inserts = []; // [offset, text]
  walk(ast, (node, parent) => {
    if (node.type === "CallExpression" || node.type === "NewExpression") {
      const p = callPosition(node);
      info.calls.push(`${p.line}:${p.column + 1}`);
    }
    if (
      node.type !== "FunctionDeclaration" &&
      node.type !== "FunctionExpression" &&
      node.type !== "ArrowFunctionExpression"
    ) {
      return;
    }
    // A method's span starts at its key (`use(fn) {}`), as a reader and a parser name it.
    const owner =
      parent && (parent.type === "MethodDefinition" || (parent.type === "Property" && (parent.method || parent.kind !== "init")))
        ? parent
        : node;
    const id = info.functions.length;
    info.functions.push(span(owner));
    const probe = `__zntcg(${JSON.stringify(r)},${id});`;
    if (node.body.type === "BlockStatement") {
      let at = node.body.start + 1;
      for (const stmt of node.body.body) {
        if (stmt.type === "ExpressionStatement" && stmt.directive !== undefined) at = stmt.end;
        else break;
      }
      inserts.push([at, probe]);
    } else {
      inserts.push([node.body.start, `(__zntcg(${JSON.stringify(r)},${id}), `]);
      inserts.push([node.body.end, ")"]);
    }
  });
  files[r] = info;
  inserts.sort((a, b) => b[0] - a[0]);
  let out = source;
  for (const [at, text] of inserts) out = out.slice(0, at) + text + out.slice(at);
  return out;
}

const structured = (_e, frames) => frames;
globalThis.__zntcg = function (file, id) {
  const saveLimit = Error.stackTraceLimit;
  const savePrepare = Error.prepareStackTrace;
  Error.stackTraceLimit = 2;
  Error.prepareStackTrace = structured;
  const holder = {};
  Error.captureStackTrace(holder, globalThis.__zntcg);
  const frames = holder.stack;
  Error.prepareStackTrace = savePrepare;
  Error.stackTraceLimit = saveLimit;
  const site = Array.isArray(frames) ? frames[1] : undefined;
  if (!site) return;
  const from = rel(site.getFileName());
  if (from === null || !(from in files)) return;
  const key = `${file}:${id}|${from}:${site.getLineNumber()}:${site.getColumnNumber()}`;
  if (seen.has(key)) return;
  seen.add(key);
  edges.push([file, id, from, site.getLineNumber(), site.getColumnNumber()]);
};

const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  const r = rel(filename);
  if (r !== null && r.endsWith(".js")) content = instrument(content, r);
  return compile.call(this, content, filename);
};

process.on("exit", () => {
  if (!OUT || edges.length === 0) return;
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, `calls-${process.pid}.json`), JSON.stringify({ files, edges }));
});
