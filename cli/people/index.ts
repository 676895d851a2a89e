// The commands for the people of an organization: HTTP to the control plane only, never its database.
import type { Command } from "../command";
import { claims } from "./claims";
import { login, logout, whoami } from "./login";
import { providers } from "./providers";

export const PEOPLE_COMMANDS: Record<string, Command> = { login, logout, whoami, claims, providers };

export const PEOPLE_USAGE = `for people of an organization (over HTTP to SVC_CONTROL_PLANE or --url, default http://127.0.0.1:8080):
  login [--scope <permission> ...]          sign in through the browser (device flow); keeps a CLI token in
                                            $XDG_CONFIG_HOME/svc/credentials.json (~/.config/svc), mode 0600
  logout [--all]                            revoke this control plane's token there and forget it here;
                                            --all revokes every CLI token of yours on that control plane
  whoami                                    the person, organization, role, granted and effective scopes, expiry
  claims add <owner/name>                   claim a repository for the organization (needs tokens.manage)
  claims list | claims revoke <id | owner/name>
  providers list                            model-provider keys (last four characters) and budgets
  providers set-key <provider>              store a provider key read from standard input, never an argument
  providers revoke <provider> | providers budget <provider> <usd>
  every one takes --json (the service's answer as it is) and --url <control plane>`;
