// An editor in miniature: the official ACP TypeScript client
// (@agentclientprotocol/sdk, pinned in package.json) drives `nova acp` as its
// agent over the child's standard input and output, through one of the
// scenarios below, and prints what it saw as JSON lines on standard output
// for internal/e2e/acp_test.go, which checks them.
//
//   node client.mjs SCENARIO WORKSPACE
//
// NOVA_BIN is the nova binary; NOVA_ARGS a JSON array of flags for `nova acp`;
// the rest of the environment (the scripted model's URL, NOVA_HOME) is
// nova's. Each line is one of:
//
//   {"t":"init", "response": …}                    the initialize response
//   {"t":"session", "method": …, "response": …}    session/new, load, set_mode
//   {"t":"update", "update": …}                     a session/update
//   {"t":"permission", "request": …, "answer": …}   a permission request and the option chosen
//   {"t":"fs", "method": …, "path": …}              a file request of the agent's
//   {"t":"prompt", "response": …}                   a prompt's answer
//   {"t":"note", …}                                 what the scenario observed itself
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import * as acp from "@agentclientprotocol/sdk";

const [scenario, cwd] = process.argv.slice(2);
const novaArgs = JSON.parse(process.env.NOVA_ARGS || "[]") ?? [];

function out(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

// connect starts nova acp and runs op with a client whose handlers answer
// permission requests with answer(request) and, with fs, serve files from
// buffers (a path's buffer, else the disk).
async function connect({ answer, fs = null }, op) {
  const child = spawn(process.env.NOVA_BIN, ["acp", ...novaArgs], {
    cwd,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp
    .client({ name: "nova-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      out({ t: "update", update: params.update });
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      const optionId = answer(params);
      out({ t: "permission", request: params, answer: optionId });
      if (optionId === null) return { outcome: { outcome: "cancelled" } };
      return { outcome: { outcome: "selected", optionId } };
    });
  if (fs) {
    app
      .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
        out({ t: "fs", method: "read", path: params.path });
        if (params.path in fs) return { content: fs[params.path] };
        return { content: readFileSync(params.path, "utf8") };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
        out({ t: "fs", method: "write", path: params.path, content: params.content });
        fs[params.path] = params.content;
        return {};
      });
  }
  const result = await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: !!fs, writeTextFile: !!fs } },
      clientInfo: { name: "nova-e2e", version: "1" },
    });
    out({ t: "init", response: init });
    return op(ctx);
  });
  child.stdin.end();
  const status = await exited;
  out({ t: "note", exit: status });
  return result;
}

async function newSession(ctx) {
  const s = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  out({ t: "session", method: "new", response: s });
  return s.sessionId;
}

async function prompt(ctx, sessionId, text) {
  const r = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  out({ t: "prompt", response: r });
  return r;
}

// byOrder answers the permission requests with the options of kinds, in
// turn: allow once, allow always, reject…
function byOrder(...kinds) {
  let i = 0;
  return (req) => {
    const kind = kinds[Math.min(i++, kinds.length - 1)];
    const o = req.options.find((o) => o.kind === kind);
    return o ? o.optionId : null;
  };
}

const scenarios = {
  // A five-turn conversation with tools in default mode: the editor
  // allows once, allows always, rejects.
  async tools() {
    await connect({ answer: byOrder("allow_once", "allow_always", "reject_once") }, async (ctx) => {
      const id = await newSession(ctx);
      await prompt(ctx, id, "tidy up the notes");
    });
  },

  // A long command cancelled while it runs: the prompt answers cancelled.
  async cancel() {
    await connect({ answer: byOrder("allow_once") }, async (ctx) => {
      const id = await newSession(ctx);
      const pending = prompt(ctx, id, "wait a long time");
      const pgidFile = join(cwd, "pgid");
      for (let i = 0; i < 400; i++) {
        let pgid = "";
        try {
          pgid = readFileSync(pgidFile, "utf8");
        } catch {}
        if (pgid.endsWith("\n")) {
          out({ t: "note", pgid: Number(pgid.trim()) });
          break;
        }
        await sleep(50);
      }
      // The test has seen the command's processes, and says when to
      // cancel; it closes standard input once it has looked for what the
      // cancel left, and the client disconnects.
      const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
      await input.next();
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId: id });
      await pending;
      while (!(await input.next()).done);
    });
  },

  // A finished session loaded by a second nova: its conversation comes
  // back as updates.
  async load() {
    const id = await connect({ answer: byOrder("allow_once") }, async (ctx) => {
      const id = await newSession(ctx);
      await prompt(ctx, id, "read the notes");
      return id;
    });
    out({ t: "note", reconnect: true });
    await connect({ answer: byOrder("allow_once") }, async (ctx) => {
      const r = await ctx.request(acp.methods.agent.session.load, { sessionId: id, cwd, mcpServers: [] });
      out({ t: "session", method: "load", response: r });
      await prompt(ctx, id, "and again");
    });
  },

  // The editor's file system: an unsaved buffer whose text differs from
  // the disk; reading .env is rejected by the person.
  async fs() {
    const notes = join(cwd, "notes.txt");
    const buffers = { [notes]: "unsaved buffer text\n" };
    const answer = (req) => {
      const path = req.toolCall.locations?.[0]?.path ?? "";
      const kind = path.endsWith(".env") ? "reject_once" : "allow_once";
      return req.options.find((o) => o.kind === kind).optionId;
    };
    await connect({ answer, fs: buffers }, async (ctx) => {
      const id = await newSession(ctx);
      await prompt(ctx, id, "fix the notes");
    });
    out({ t: "note", buffers });
  },

  // Modes: plan mode, a plan approved with accept edits.
  async modes() {
    await connect({ answer: (req) => req.options.find((o) => o.optionId === "approve_accept_edits")?.optionId ?? null }, async (ctx) => {
      const id = await newSession(ctx);
      const r = await ctx.request(acp.methods.agent.session.setMode, { sessionId: id, modeId: "plan" });
      out({ t: "session", method: "set_mode", response: r });
      await prompt(ctx, id, "plan the change");
    });
  },
};

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario ${scenario}; one of ${Object.keys(scenarios).join(", ")}`);
  process.exit(2);
}
await run();
