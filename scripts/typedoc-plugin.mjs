/**
 * tracewire's TypeDoc plugin (loaded by typedoc.config.mjs). Two checks, reported as TypeDoc warnings, which the
 * config turns into errors:
 *
 * 1. Each public subpath's entry file names itself: its first doc comment carries `@module <specifier>`
 *    (`@module tracewire/otel`), so the reference lists modules by the names users import, each with its
 *    description. A new subpath without it fails and is named.
 * 2. Every public name has a doc comment: every exported function, class, interface, type alias, variable and
 *    enum of every entry point, and every public method, accessor and property of those — with two exemptions:
 *    members of anonymous object types inside a declaration (`{ delta: { content } }`, `T & { stream: true }`), and
 *    the properties of the
 *    wire types in src/api/types/, which carry the service's JSON fields one for one (the interface itself still
 *    needs a comment). A member documented on the class or interface it inherits from counts as documented.
 *    This replaces TypeDoc's `validation.notDocumented` (which has no way to say the two exemptions).
 */
import { relative } from "node:path";
import { Application, DeclarationReflection, ReflectionKind, ReflectionType } from "typedoc";
import { publicEntries } from "./public-entries.mjs";

const WIRE_TYPES = "/src/api/types/";

/** The kinds that need a comment (TypeDoc's default `requiredToBeDocumented`). */
const REQUIRED =
  ReflectionKind.Enum |
  ReflectionKind.EnumMember |
  ReflectionKind.Variable |
  ReflectionKind.Function |
  ReflectionKind.Class |
  ReflectionKind.Interface |
  ReflectionKind.Property |
  ReflectionKind.Method |
  ReflectionKind.Accessor |
  ReflectionKind.TypeAlias;

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.on(Application.EVENT_VALIDATE_PROJECT, (project) => {
    checkModuleNames(app, project);
    checkDocumented(app, project);
  });
}

/** Check 1: one module per public entry, named by its specifier. */
function checkModuleNames(app, project) {
  const modules = project.getChildrenByKind(ReflectionKind.Module);
  for (const entry of publicEntries()) {
    const found = modules.find((m) => m.sources?.some((s) => s.fullFileName === entry.source));
    const file = relative(process.cwd(), entry.source);
    if (!found || found.name !== entry.specifier || !found.hasComment()) {
      app.logger.warn(
        `${entry.specifier} (${file}): the entry file's first doc comment must describe the subpath and end with ` +
          `"@module ${entry.specifier}"` +
          (found ? ` (it is documented as "${found.name}"${found.hasComment() ? "" : " with no description"})` : ""),
      );
    }
  }
}

/** Whether `ref` sits inside a parameter's type or an anonymous object type (a member of a `{ … }` literal). */
function isNestedMember(ref) {
  for (let r = ref.parent; r; r = r.parent) {
    if (r.kindOf(ReflectionKind.Parameter)) return true;
    // `type Options = { … }` declares members like an interface's; any other `{ … }` (a property's type, one arm
    // of a union or intersection) is an anonymous shape.
    if (r.kindOf(ReflectionKind.TypeLiteral) && !isAliasBody(r)) return true;
  }
  return false;
}

/** Whether the type literal `literal` is the whole of a type alias (`type Options = { … }`). */
function isAliasBody(literal) {
  const alias = literal.parent;
  return (
    alias?.kindOf(ReflectionKind.TypeAlias) &&
    alias.type instanceof ReflectionType &&
    alias.type.declaration === literal
  );
}

/** Check 2: a comment on every public name (see the file comment for the exemptions). */
function checkDocumented(app, project) {
  const packageName = project.packageName;
  for (const ref of project.getReflectionsByKind(REQUIRED)) {
    if (isNestedMember(ref)) continue;
    const source = ref.sources?.[0]?.fullFileName ?? "";
    if (ref.kindOf(ReflectionKind.Property) && source.includes(WIRE_TYPES)) continue;
    const symbol = project.getSymbolIdFromReflection(ref);
    if (symbol && symbol.packageName !== packageName) continue; // re-exported from a dependency
    // A function, method or accessor is documented by a comment on it or on each of its signatures.
    const signatures =
      ref instanceof DeclarationReflection
        ? ref.type instanceof ReflectionType && ref.kindOf(ReflectionKind.Variable | ReflectionKind.Property)
          ? []
          : ref.getNonIndexSignatures()
        : [];
    const documented = ref.hasComment() || (signatures.length > 0 && signatures.every((s) => s.hasComment()));
    if (!documented) {
      const where = source ? relative(process.cwd(), source) : "?";
      app.logger.warn(
        `${ref.getFriendlyFullName()} (${ReflectionKind[ref.kind]}, ${where}) has no doc comment: ` +
          "every public name needs one (scripts/typedoc-plugin.mjs says which)",
      );
    }
  }
}
