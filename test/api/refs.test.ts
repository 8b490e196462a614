import { describe, expect, it } from "vitest";
import {
  annotationFeedbackType,
  callRef,
  NOTE_FEEDBACK_TYPE,
  objectRef,
  opRef,
  parseRef,
  REACTION_FEEDBACK_TYPE,
  runnableFeedbackType,
  tableRef,
} from "../../src/api/index.js";
import { ValidationError } from "../../src/errors.js";

describe("refs: builders", () => {
  it("build the service's weave:/// URIs", () => {
    expect(callRef("acme/demo", "00f067aa0ba902b7")).toBe("weave:///acme/demo/call/00f067aa0ba902b7");
    expect(objectRef("acme/demo", "qa-dataset", "Xk3abc")).toBe("weave:///acme/demo/object/qa-dataset:Xk3abc");
    expect(objectRef("acme/demo", "qa-dataset")).toBe("weave:///acme/demo/object/qa-dataset:latest");
    expect(opRef("acme/demo", "summarize", "d1")).toBe("weave:///acme/demo/op/summarize:d1");
    expect(tableRef("acme/demo", "t1")).toBe("weave:///acme/demo/table/t1");
  });

  it("refuse parts that would make an ambiguous ref", () => {
    expect(() => callRef("acme", "c1")).toThrow(/entity\/project/);
    expect(() => callRef("acme/demo", "")).toThrow(ValidationError);
    expect(() => callRef("acme/demo", "a/b")).toThrow(/callId must be a non-empty string without "\/"/);
    expect(() => objectRef("acme/demo", "a:b")).toThrow(/name must be/);
    expect(() => opRef("acme/demo", "f", "d:1")).toThrow(/digest must be/);
    expect(() => tableRef("acme/demo/x", "t1")).toThrow(/entity\/project/);
  });
});

describe("refs: parseRef", () => {
  it("round-trips every builder", () => {
    expect(parseRef(callRef("acme/demo", "c1"))).toEqual({
      entity: "acme",
      project: "demo",
      projectId: "acme/demo",
      kind: "call",
      callId: "c1",
      extra: [],
    });
    expect(parseRef(objectRef("acme/demo", "ds", "abc"))).toEqual({
      entity: "acme",
      project: "demo",
      projectId: "acme/demo",
      kind: "object",
      name: "ds",
      digest: "abc",
      extra: [],
    });
    expect(parseRef(opRef("acme/demo", "f", "latest"))).toMatchObject({ kind: "op", name: "f", digest: "latest" });
    expect(parseRef(tableRef("acme/demo", "t1"))).toMatchObject({
      kind: "table",
      digest: "t1",
      projectId: "acme/demo",
    });
  });

  it("decodes edge/value paths after the main part", () => {
    expect(parseRef("weave:///e/p/object/ds:abc/attr/rows/id/r%2F1").extra).toEqual(["attr", "rows", "id", "r/1"]);
    expect(parseRef("weave:///e/p/table/t1/id/row9")).toMatchObject({ digest: "t1", extra: ["id", "row9"] });
  });

  it("rejects malformed refs with a message that says what is wrong", () => {
    const bad: [string, RegExp][] = [
      ["https://acme/demo/call/c1", /must start with "weave:\/\/\/"/],
      ["weave:///acme", /expected weave:\/\/\/\{entity\}\/\{project\}/],
      ["weave:///acme/demo/run/r1", /kind must be one of call, object, op, table/],
      ["weave:///acme/demo/call", /nothing follows "call\/"/],
      ["weave:///acme/demo/call/", /nothing follows "call\/"/],
      ["weave:///acme/demo/object/ds", /exactly one "name:digest"/],
      ["weave:///acme/demo/op/:abc", /exactly one "name:digest"/],
      ["weave:///acme/demo/object/a:b:c", /exactly one "name:digest"/],
      ["weave:///acme/demo/object/ds:abc/attr", /edge\/value pairs/],
      ["weave:///acme/demo/table/t1/id/%E0%A4%A", /percent-encoding/],
    ];
    for (const [uri, message] of bad) {
      expect(() => parseRef(uri), uri).toThrow(ValidationError);
      expect(() => parseRef(uri), uri).toThrow(message);
      expect(() => parseRef(uri), uri).toThrow(`parseRef: ${JSON.stringify(uri)} is not a valid ref`);
    }
    expect(() => parseRef(42 as unknown as string)).toThrow(/expected a string/);
  });
});

describe("refs: feedback types", () => {
  it("names the service's feedback types", () => {
    expect(REACTION_FEEDBACK_TYPE).toBe("wandb.reaction.1");
    expect(NOTE_FEEDBACK_TYPE).toBe("wandb.note.1");
    expect(annotationFeedbackType("helpfulness")).toBe("wandb.annotation.helpfulness");
    expect(runnableFeedbackType("ExactMatch")).toBe("wandb.runnable.ExactMatch");
    expect(() => annotationFeedbackType("")).toThrow(ValidationError);
    expect(() => runnableFeedbackType("a b")).toThrow(/scorer must be/);
  });
});
