// The site's forms post JSON to the control plane (cross-origin; the control plane grants only the
// site's own origins, SVC_SITE_ORIGIN). The only script of the site: every page works without it.
(function () {
  var meta = document.querySelector('meta[name="svc-control-plane"]');
  var api = meta ? meta.getAttribute("content") : "";
  var forms = document.querySelectorAll("form[data-endpoint]");
  Array.prototype.forEach.call(forms, function (form) {
    var status = form.querySelector(".form-status");
    var button = form.querySelector("button[type=submit]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (!form.reportValidity()) return;
      var body = {};
      new FormData(form).forEach(function (value, name) {
        if (String(value).trim() !== "") body[name] = String(value).trim();
      });
      status.textContent = "Sending…";
      form.dataset.state = "sending";
      button.disabled = true;
      fetch(api + form.dataset.endpoint, {
        method: "POST",
        mode: "cors",
        credentials: "omit",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })
        .then(
          function (response) {
            if (response.status === 201) {
              form.reset();
              form.dataset.state = "sent";
              status.textContent = "Thank you: we received it and will write to you.";
              return;
            }
            return response
              .json()
              .catch(function () {
                return {};
              })
              .then(function (answer) {
                form.dataset.state = "refused";
                status.textContent = (answer && answer.error) || "The form was refused (" + response.status + ").";
              });
          },
          function () {
            form.dataset.state = "failed";
            status.textContent = "The form could not be sent. Check your connection and try again.";
          },
        )
        .then(function () {
          button.disabled = false;
        });
    });
  });
})();
