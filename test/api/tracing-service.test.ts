import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { type MethodCase, runCases, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

const P = "acme/demo";

describe("TracingClient.service", () => {
  it("health, version, serverInfo, geolocate and projectsInfo hit their endpoints", async () => {
    const cases: MethodCase[] = [
      {
        name: "service.health",
        method: "GET",
        path: "/health",
        run: () => ctx.client.service.health(),
        reply: "ok",
        retriesOn500: true,
      },
      {
        name: "service.version",
        method: "GET",
        path: "/version",
        run: () => ctx.client.service.version(),
        reply: "0.52.1",
        retriesOn500: true,
      },
      {
        name: "service.serverInfo",
        method: "GET",
        path: "/server_info",
        run: () => ctx.client.service.serverInfo(),
        reply: { min_required_weave_python_version: "0.50.0", trace_server_version: "1.2.3" },
        retriesOn500: true,
      },
      {
        name: "service.geolocate",
        method: "GET",
        path: "/geolocate",
        run: () => ctx.client.service.geolocate(),
        reply: { country: "DE" },
        retriesOn500: true,
      },
      {
        name: "service.projectsInfo",
        method: "POST",
        path: "/service/projects_info",
        run: () => ctx.client.service.projectsInfo({ project_ids: [P] }),
        json: { project_ids: [P] },
        reply: [{ external_project_id: P, internal_project_id: "UHJvamVjdDox" }],
        retriesOn500: true,
      },
    ];
    await runCases(ctx.server, cases);
  });

  it("projectsInfo refuses a request without project_ids", () => {
    expect(() => ctx.client.service.projectsInfo({} as { project_ids: string[] })).toThrow(ValidationError);
  });
});

describe("TracingClient.inferenceCatalog", () => {
  it("the three catalog reads encode their path parameter and pass query parameters through", async () => {
    const cases: MethodCase[] = [
      {
        name: "inferenceCatalog.analysisModels",
        method: "GET",
        path: "/inference/analysis/open%20ai%2Fx/models",
        run: () => ctx.client.inferenceCatalog.analysisModels("open ai/x"),
        reply: { models: [{ id: "gpt-4o" }] },
        retriesOn500: true,
      },
      {
        name: "inferenceCatalog.hardware",
        method: "GET",
        path: "/inference/coreweave/v2/hardware",
        query: { region: ["us-east"], gpu: ["h100", "a100"] },
        run: () => ctx.client.inferenceCatalog.hardware("coreweave", { region: "us-east", gpu: ["h100", "a100"] }),
        reply: [{ name: "h100" }],
        retriesOn500: true,
      },
      {
        name: "inferenceCatalog.routerModels",
        method: "GET",
        path: "/inference/router/openrouter/models",
        run: () => ctx.client.inferenceCatalog.routerModels("openrouter"),
        reply: { data: [] },
        retriesOn500: true,
      },
    ];
    await runCases(ctx.server, cases);
    expect(() => ctx.client.inferenceCatalog.hardware("")).toThrow(/vendor must be a non-empty string/);
  });
});

describe("TracingClient.images and TracingClient.evaluations", () => {
  it("images.create, evaluations.evaluateModel and evaluations.status send their documented bodies", async () => {
    const cases: MethodCase[] = [
      {
        name: "images.create",
        method: "POST",
        path: "/image/create",
        run: () =>
          ctx.client.images.create({ inputs: { model: "dall-e-3", prompt: "a cat", n: 1, size: "1024x1024" } }),
        json: { project_id: P, inputs: { model: "dall-e-3", prompt: "a cat", n: 1, size: "1024x1024" } },
        reply: { response: { data: [{ url: "https://x/cat.png" }] }, weave_call_id: "c1" },
        retriesOn500: false,
      },
      {
        name: "evaluations.evaluateModel",
        method: "POST",
        path: "/evaluations/evaluate_model",
        run: () =>
          ctx.client.evaluations.evaluateModel({
            evaluation_ref: "weave:///acme/demo/object/eval:abc",
            model_ref: "weave:///acme/demo/object/model:def",
          }),
        json: {
          project_id: P,
          evaluation_ref: "weave:///acme/demo/object/eval:abc",
          model_ref: "weave:///acme/demo/object/model:def",
        },
        reply: { call_id: "c-eval" },
        retriesOn500: false,
      },
      {
        name: "evaluations.status",
        method: "POST",
        path: "/evaluations/status",
        run: () => ctx.client.evaluations.status({ call_id: "c-eval" }),
        json: { project_id: P, call_id: "c-eval" },
        reply: { status: { code: "running", completed_rows: 3, total_rows: 10 } },
        retriesOn500: true,
      },
    ];
    await runCases(ctx.server, cases);
  });
});
