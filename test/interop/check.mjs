// Reads the recordings ghost's Go recorder wrote (TestInteropRecording) with
// the TypeScript MCAP library's indexed reader, decodes every message with
// the ROS 2 CDR library using only the schema text stored in the file, and
// compares each with the values in expected.json.
//
// Usage: node check.mjs <dir holding expected.json and the recordings>
// Exit status 0 only when every check passed.

import { open, readFile } from "node:fs/promises";
import path from "node:path";

import { parse } from "@foxglove/rosmsg";
import { MessageReader } from "@foxglove/rosmsg2-serialization";
import { McapIndexedReader } from "@mcap/core";
import { FileHandleReadable } from "@mcap/nodejs";
import { loadDecompressHandlers } from "@mcap/support";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node check.mjs <dir>");
  process.exit(2);
}

let passed = 0;
const failures = [];
function check(ok, what) {
  if (ok) {
    passed++;
  } else {
    failures.push(what);
    console.error(`FAIL ${what}`);
  }
}

const textDecoder = new TextDecoder();

// Floats that JSON cannot carry arrive as strings in expected.json.
const specialFloats = {
  NaN: NaN,
  Infinity: Infinity,
  "-Infinity": -Infinity,
  "-0.0": -0,
};

// compare returns undefined when actual (decoded from CDR) equals expected
// (golden JSON), or a description of the first difference.
function compare(expected, actual, where) {
  if (typeof actual === "bigint") {
    if (typeof expected !== "string") {
      return `${where}: expected ${JSON.stringify(expected)}, decoded bigint ${actual}`;
    }
    return BigInt(expected) === actual ? undefined : `${where}: expected ${expected}, decoded ${actual}`;
  }
  if (typeof actual === "number") {
    let want = expected;
    if (typeof expected === "string" && expected in specialFloats) {
      want = specialFloats[expected];
    }
    if (typeof want !== "number") {
      return `${where}: expected ${JSON.stringify(expected)}, decoded number ${actual}`;
    }
    // Object.is: NaN equals NaN, and 0 differs from -0.
    return Object.is(want, actual) ? undefined : `${where}: expected ${expected}, decoded ${actual}`;
  }
  if (ArrayBuffer.isView(actual) || Array.isArray(actual)) {
    const items = Array.from(actual);
    if (!Array.isArray(expected)) {
      return `${where}: expected ${JSON.stringify(expected)}, decoded an array`;
    }
    if (items.length !== expected.length) {
      return `${where}: expected ${expected.length} elements, decoded ${items.length}`;
    }
    for (let i = 0; i < items.length; i++) {
      const d = compare(expected[i], items[i], `${where}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (actual !== null && typeof actual === "object") {
    if (expected === null || typeof expected !== "object" || Array.isArray(expected)) {
      return `${where}: expected ${JSON.stringify(expected)}, decoded an object`;
    }
    const want = Object.keys(expected);
    const got = Object.keys(actual);
    if (want.join(",") !== got.join(",")) {
      return `${where}: expected fields ${want.join(",")}, decoded ${got.join(",")}`;
    }
    for (const k of want) {
      const d = compare(expected[k], actual[k], `${where}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  // bool, string
  return expected === actual
    ? undefined
    : `${where}: expected ${JSON.stringify(expected)}, decoded ${JSON.stringify(actual)}`;
}

async function checkRecording(rec, expected, decompressHandlers) {
  const file = path.join(dir, rec.file);
  const handle = await open(file, "r");
  try {
    const reader = await McapIndexedReader.Initialize({
      readable: new FileHandleReadable(handle),
      decompressHandlers,
    });
    check(reader.header.profile === expected.profile, `${rec.file}: profile "${reader.header.profile}"`);
    check(
      reader.chunkIndexes.length > 1 &&
        reader.chunkIndexes.every((c) => c.compression === rec.compression),
      `${rec.file}: ${reader.chunkIndexes.length} chunks, all "${rec.compression}"`,
    );
    check(
      reader.statistics !== undefined &&
        reader.statistics.messageCount === BigInt(expected.messages.length),
      `${rec.file}: statistics count ${reader.statistics?.messageCount}, want ${expected.messages.length}`,
    );

    // One MessageReader per schema, built from the schema text in the file.
    const decoders = new Map();
    const byTopic = new Map();
    for (const ch of reader.channelsById.values()) {
      byTopic.set(ch.topic, ch);
      const schema = reader.schemasById.get(ch.schemaId);
      check(schema !== undefined, `${rec.file} ${ch.topic}: schema ${ch.schemaId} present`);
      if (!schema) continue;
      check(
        schema.encoding === "ros2msg" && ch.messageEncoding === "cdr",
        `${rec.file} ${ch.topic}: encodings ${schema.encoding}/${ch.messageEncoding}`,
      );
      if (!decoders.has(schema.id)) {
        const text = textDecoder.decode(schema.data);
        try {
          decoders.set(schema.id, new MessageReader(parse(text, { ros2: true })));
        } catch (err) {
          check(false, `${rec.file} ${schema.name}: schema text does not parse: ${err.message}`);
        }
      }
    }
    for (const want of expected.channels) {
      const ch = byTopic.get(want.topic);
      const schema = ch && reader.schemasById.get(ch.schemaId);
      check(
        ch !== undefined &&
          schema?.name === want.schema_name &&
          ch.metadata.get("offered_qos_profiles") === want.offered_qos_profiles,
        `${rec.file} ${want.topic}: channel with schema ${want.schema_name} and its QoS metadata`,
      );
    }

    let i = 0;
    for await (const m of reader.readMessages()) {
      const want = expected.messages[i++];
      if (!want) {
        check(false, `${rec.file}: more messages than the ${expected.messages.length} expected`);
        break;
      }
      const ch = reader.channelsById.get(m.channelId);
      const schema = ch && reader.schemasById.get(ch.schemaId);
      const where = `${rec.file} #${i} (${want.vector})`;
      if (
        ch?.topic !== want.topic ||
        schema?.name !== want.schema_name ||
        m.logTime !== BigInt(want.log_time) ||
        m.publishTime !== BigInt(want.publish_time) ||
        m.sequence !== want.sequence
      ) {
        check(
          false,
          `${where}: got ${ch?.topic} ${schema?.name} log=${m.logTime} pub=${m.publishTime} seq=${m.sequence}, ` +
            `want ${want.topic} ${want.schema_name} log=${want.log_time} pub=${want.publish_time} seq=${want.sequence}`,
        );
        continue;
      }
      const decoder = decoders.get(ch.schemaId);
      if (!decoder) {
        check(false, `${where}: no decoder for ${schema.name}`);
        continue;
      }
      let decoded;
      try {
        decoded = decoder.readMessage(m.data);
      } catch (err) {
        check(false, `${where}: CDR does not decode: ${err.message}`);
        continue;
      }
      check(!decoder.lastReadHadTrailingBytes(), `${where}: no bytes after the last field`);
      const diff = compare(want.message, decoded, want.schema_name);
      check(diff === undefined, `${where}: ${diff}`);
    }
    check(i === expected.messages.length, `${rec.file}: read ${i} messages, want ${expected.messages.length}`);
  } finally {
    await handle.close();
  }
}

// checkStandardSchema parses the schema text ghost writes for a standard
// ROS 2 type and compares its fields and constants with what Go reads
// from the same text.
function checkStandardSchema(want) {
  const where = `schema ${want.schema_name}`;
  let defs;
  try {
    defs = parse(want.text, { ros2: true });
  } catch (err) {
    check(false, `${where}: does not parse: ${err.message}`);
    return;
  }
  const top = defs[0].definitions;
  const fields = top
    .filter((d) => !d.isConstant)
    .map((d) => ({
      name: d.name,
      type: d.type,
      is_array: d.isArray === true,
      ...(d.arrayLength !== undefined && { array_length: d.arrayLength }),
      ...(d.arrayUpperBound !== undefined && { array_upper_bound: d.arrayUpperBound }),
    }));
  const wantFields = want.fields.map((f) => ({ array_length: undefined, array_upper_bound: undefined, ...f }));
  const norm = (list) =>
    JSON.stringify(list.map((f) => [f.name, f.type, f.is_array, f.array_length ?? 0, f.array_upper_bound ?? 0]));
  check(norm(fields) === norm(wantFields), `${where}: fields ${norm(fields)}, want ${norm(wantFields)}`);
  const consts = top.filter((d) => d.isConstant).map((d) => [d.name, d.type, String(d.value)]);
  const wantConsts = (want.constants ?? []).map((c) => [c.name, c.type, c.value]);
  check(
    JSON.stringify(consts) === JSON.stringify(wantConsts),
    `${where}: constants ${JSON.stringify(consts)}, want ${JSON.stringify(wantConsts)}`,
  );
}

const expected = JSON.parse(await readFile(path.join(dir, "expected.json"), "utf8"));
if (!expected.recordings?.length || !expected.messages?.length) {
  console.error(`${dir}/expected.json lists no recordings or no messages`);
  process.exit(1);
}
if (!expected.standard_schemas?.length) {
  console.error(`${dir}/expected.json lists no standard schemas`);
  process.exit(1);
}
for (const want of expected.standard_schemas) {
  checkStandardSchema(want);
}
const decompressHandlers = await loadDecompressHandlers();
for (const rec of expected.recordings) {
  try {
    await checkRecording(rec, expected, decompressHandlers);
  } catch (err) {
    check(false, `${rec.file}: ${err.stack ?? err}`);
  }
}

console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
