// Repository names as the code host writes them (`owner/name`). The code host ignores case, so every
// comparison goes through `repositoryKey`.
import * as z from "zod";
import { storable } from "./text";

const PART = "[A-Za-z0-9_.-]+";
export const REPOSITORY_PATTERN = new RegExp(`^${PART}/${PART}$`);
/** One half of `owner/name`. */
export const REPOSITORY_PART_PATTERN = new RegExp(`^${PART}$`);

export const RepositoryName = storable(z.string().max(140).regex(REPOSITORY_PATTERN, "must be `owner/name`"));

export const repositoryKey = (repository: string) => repository.toLowerCase();

export const ownerOf = (repository: string) => repository.slice(0, repository.indexOf("/"));
