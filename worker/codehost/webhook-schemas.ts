// The parts of the code host's installation deliveries this service reads. Anything else in a
// payload is ignored; an event or action not listed here is acknowledged and changes nothing.
import * as z from "zod";
import { text } from "../http/text";
import { RepositoryName } from "../http/repository-name";

const Account = z.object({ login: text({ min: 1, max: 100 }), id: z.number().int().positive() });

export const InstallationRef = z.object({ id: z.number().int().positive(), account: Account });
export type InstallationRef = z.infer<typeof InstallationRef>;

const Repository = z.object({ id: z.number().int().positive(), full_name: RepositoryName });
export type InstallationRepository = z.infer<typeof Repository>;

export const InstallationEvent = z.object({
  action: z.enum(["created", "deleted", "suspend", "unsuspend"]),
  installation: InstallationRef,
  repositories: z.array(Repository).optional(),
});

export const InstallationRepositoriesEvent = z.object({
  action: z.enum(["added", "removed"]),
  installation: InstallationRef,
  repositories_added: z.array(Repository).default([]),
  repositories_removed: z.array(Repository).default([]),
});

/** The installation's account was renamed: the account (its id) under its new login. */
export const InstallationTargetEvent = z.object({
  action: z.enum(["renamed"]),
  account: Account,
  installation: z.object({ id: z.number().int().positive() }),
});

/** `X-GitHub-Event` and `X-GitHub-Delivery` as the code host sends them. */
export const EVENT_NAME = /^[a-z_]{1,64}$/;
export const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;
