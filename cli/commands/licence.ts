// `svc licence keygen` and `svc licence issue`: for the operator who holds the private key, and for
// testing the whole licence flow locally.
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { licenceKeyPair, licencePublicKey, mintLicence } from "../licence-mint";
import { UsageError, type Command } from "../command";

const DAY = 86_400;
const USAGE =
  "licence: expected `licence keygen --out <private.pem>` or `licence issue --key <private.pem> --kid <kid> --org <org> --id <lid> (--expires <YYYY-MM-DD> | --days N) [--grace-days N] [--feature F ...]`.";

export const licence: Command = async (args) => {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: "string" },
      key: { type: "string" },
      kid: { type: "string" },
      org: { type: "string" },
      id: { type: "string" },
      expires: { type: "string" },
      days: { type: "string" },
      "grace-days": { type: "string" },
      feature: { type: "string", multiple: true },
    },
  });
  if (positionals[0] === "keygen") {
    if (!values.out) throw new UsageError(USAGE);
    const pair = await licenceKeyPair();
    writeFileSync(values.out, pair.privateKeyPem, { mode: 0o600, flag: "wx" });
    console.error(`private key written to ${values.out}; keep it secret. Trust it with:`);
    console.log(`SVC_LICENSE_PUBLIC_KEYS=<kid>=${pair.publicKey}`);
    return 0;
  }
  if (positionals[0] === "public-key") {
    if (!values.key) throw new UsageError(USAGE);
    console.log(await licencePublicKey(readFileSync(values.key, "utf8")));
    return 0;
  }
  if (positionals[0] !== "issue") throw new UsageError(USAGE);
  if (!values.key || !values.kid || !values.org || !values.id) throw new UsageError(USAGE);
  const now = Math.floor(Date.now() / 1000);
  let expiresAt: number;
  if (values.expires !== undefined) {
    const at = Date.parse(values.expires);
    if (Number.isNaN(at)) throw new UsageError("licence: --expires is a date such as 2027-01-31 (or an RFC 3339 instant).");
    expiresAt = Math.floor(at / 1000);
  } else if (values.days !== undefined && /^-?\d+$/.test(values.days)) {
    expiresAt = now + Number(values.days) * DAY;
  } else {
    throw new UsageError(USAGE);
  }
  const graceDays = values["grace-days"] ?? "14";
  if (!/^\d+$/.test(graceDays)) throw new UsageError("licence: --grace-days is a whole number of days.");
  const token = await mintLicence(readFileSync(values.key, "utf8"), values.kid, {
    id: values.id,
    org: values.org,
    expiresAt,
    graceSeconds: Number(graceDays) * DAY,
    features: values.feature ?? [],
  });
  console.log(token);
  return 0;
};
