// A second person in an organization: invited by its owner on the Members page, signed in from the
// link and accepted, as a person does it.
import type { Browser, Page } from "playwright-core";
import { fake, openPage, said, signedIn, signInFrom } from "./browser";

/** `owner` (a console page of an owner) invites `login` as a viewer; the viewer's page, after accepting. */
export async function joinedAsViewer(browser: Browser, owner: Page, login: string): Promise<Page> {
  await fake("/_fake/users", { login, email: `${login}@example.test` });
  await openPage(owner, "Members");
  await owner.getByLabel("Email address").fill(`${login}@example.test`);
  await owner.getByRole("form", { name: "Invite" }).getByLabel("Role").selectOption("viewer");
  await owner.getByRole("button", { name: "Invite", exact: true }).click();
  await said(owner, /send them the link/);
  const link = (await owner.getByTestId("shown-once").textContent())!;
  const viewer = await signedIn(browser, login, { startAt: link });
  await signInFrom(viewer, "Sign in to accept");
  await viewer.getByRole("button", { name: "Accept the invitation" }).click();
  await said(viewer, /You joined .* as viewer\./);
  return viewer;
}
