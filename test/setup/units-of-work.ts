// Every test of the worker project fails when a network call was made while a database transaction
// was open (db/transaction.ts, assertNoTransaction): the call throws, but a swallowed error (work
// after the response, a failure answered as a 500) would otherwise leave the test green.
import { afterEach, expect } from "vitest";
import { takeRefusedNetworkCalls } from "../../db/transaction";

afterEach(() => {
  expect(takeRefusedNetworkCalls(), "network calls made while a database transaction was open (db/README.md, Units of work)").toEqual([]);
});
