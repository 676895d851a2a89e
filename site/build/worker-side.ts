// The part of the site's build that runs the control plane's own code (type-checked with the Worker):
// /openapi.json exactly as a deployment generates it at request time, from the same routes and
// generator, and the error catalog's published form. site/build/build.ts loads it in Node.
import { createApp } from "../../worker/app";
import { catalogDocument } from "../../worker/http/catalog";
import { openApiDocument } from "../../worker/openapi/document";
import { publishedRoutes } from "../../worker/openapi/routes";
import { rpcRouteDocs } from "../../worker/rpc/openapi";

export function controlPlaneDocument(serverUrl: string): Record<string, unknown> {
  return openApiDocument(serverUrl, [...publishedRoutes(createApp()), ...rpcRouteDocs()]);
}

export function errorCatalogDocument(docsBase: string): ReturnType<typeof catalogDocument> {
  return catalogDocument(docsBase);
}
