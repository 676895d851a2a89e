import { describe, expect, it } from "vitest";
import { addressBucket, clientAddress, rateLimitSubject } from "../../worker/http/client-address";

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
    for (const notIpv6 of [
      "1:::2",
      ":1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "12345::1",
      "::g",
      "1::2::3",
      "::1.2.3.256",
      "::1.2.3",
      "1:2:3:4:5:6:7:1.2.3.4",
    ]) {
      expect({ notIpv6, address: clientAddress(notIpv6, 1) }).toEqual({ notIpv6, address: null });
    }
    expect(addressBucket("signin", null)).toBe("signin:shared");
  });
});

describe("the rate-limit subject of an address", () => {
  it("is an IPv4 address whole", () => {
    expect(rateLimitSubject("198.51.100.7")).toBe("198.51.100.7");
    expect(addressBucket("signin", "198.51.100.7")).not.toBe(addressBucket("signin", "198.51.100.8"));
  });

  it("is an IPv6 address's /64, however it is written", () => {
    const subject = "2001:0db8:0000:0001::/64";
    for (const spelling of [
      "2001:db8:0:1::1",
      "2001:db8::1:0:0:0:1",
      "2001:0db8:0000:0001:ffff:ffff:ffff:ffff",
      "2001:db8:0:1:a:b:1.2.3.4",
      "2001:db8:0:1::",
    ]) {
      expect({ spelling, subject: rateLimitSubject(spelling) }).toEqual({ spelling, subject });
    }
    expect(rateLimitSubject("2001:db8:0:2::1")).toBe("2001:0db8:0000:0002::/64");
    expect(rateLimitSubject("::1")).toBe("0000:0000:0000:0000::/64");
    expect(addressBucket("signin", "2001:db8:0:1::1")).toBe(addressBucket("signin", "2001:db8:0:1:dead:beef:0:7"));
  });

  it("is an IPv4-mapped IPv6 address's IPv4 address, in either spelling", () => {
    expect(rateLimitSubject("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(rateLimitSubject("::ffff:c633:6407")).toBe("198.51.100.7");
    expect(addressBucket("signin", "::ffff:198.51.100.7")).toBe(addressBucket("signin", "198.51.100.7"));
  });
});
