import { describe, expect, it } from "vitest";
import { addressBucket, clientAddress } from "../../worker/http/client-address";

describe("clientAddress (SVC_TRUSTED_PROXY_HOPS)", () => {
  it("takes the entry that many places from the end", () => {
    expect(clientAddress("198.51.100.7", 1)).toBe("198.51.100.7");
    expect(clientAddress("6.6.6.6, 198.51.100.7, 10.0.0.1", 1)).toBe("10.0.0.1");
    expect(clientAddress("6.6.6.6, 198.51.100.7, 10.0.0.1", 2)).toBe("198.51.100.7");
    expect(clientAddress("2001:DB8::1", 1)).toBe("2001:db8::1");
  });

  it("gives null (one shared bucket, nothing recorded) when absent, too short or not an address", () => {
    expect(clientAddress(undefined, 1)).toBeNull();
    expect(clientAddress("198.51.100.7", 2)).toBeNull();
    expect(clientAddress("not-an-address", 1)).toBeNull();
    expect(clientAddress("999.1.1.1", 1)).toBeNull();
    expect(addressBucket("signin", null)).toBe("signin:shared");
  });
});
