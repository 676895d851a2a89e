// SVC_OBJECT_LOCATION_HINT reaches the platform: every object the Worker names is asked for with the
// hint, so one created before Smart Placement has moved the Worker still starts near the database.
import { expect, it } from "vitest";
import type { Env } from "../../worker/env";
import { namedObject } from "../../worker/object-calls";
import { baseEnv } from "../config/fixtures";

/** The platform's namespace as far as `get` goes: records what it was asked for. */
function recordingNamespace() {
  const asked: Array<{ name: string; options: DurableObjectNamespaceGetDurableObjectOptions | undefined }> = [];
  const namespace = {
    idFromName: (name: string) => ({ name }),
    get: (id: { name: string }, options?: DurableObjectNamespaceGetDurableObjectOptions) => {
      asked.push({ name: id.name, options });
      return {};
    },
  } as unknown as DurableObjectNamespace;
  return { namespace, asked };
}

it.each([
  ["set", { SVC_OBJECT_LOCATION_HINT: "weur" }, { locationHint: "weur" }],
  ["unset", {}, undefined],
])("asks for an object with the location hint when it is %s", (_, variables, options) => {
  const { namespace, asked } = recordingNamespace();
  namedObject({ ...baseEnv, ...variables } as unknown as Env, namespace, "org/env");
  expect(asked).toEqual([{ name: "org/env", options }]);
});
