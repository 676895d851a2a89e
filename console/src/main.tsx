// The console: a single-page application over the control plane's /rpc procedures.
import { render } from "preact";
import { BASE_CSS } from "../../worker/shared/styles";
import { App } from "./app";
import "./console.css";

document.head.insertBefore(Object.assign(document.createElement("style"), { textContent: BASE_CSS }), document.head.firstChild);
const root = document.getElementById("app")!;
root.replaceChildren(); // the "Loading" placeholder of index.html
render(<App />, root);
