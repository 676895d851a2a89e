export function SignInPage() {
  return (
    <main class="narrow">
      <div class="panel">
        <h1>Sign in</h1>
        <p>Sign in with your code-host account to see your organization's environments, workloads and people.</p>
        <p>
          <a class="button" href="/auth/signin">
            Sign in with the code host
          </a>
        </p>
      </div>
    </main>
  );
}
