// Admission Playground: loading panes from templates and from plain manifests.
// - Templates: each pane that holds Kubernetes objects gets a "Template" menu, filled from
//   GET /api/v1/templates for the selected Kubernetes version (apiVersions that version has).
// - Plain manifests (a file chosen with Import…, dropped outside the panes, or pasted with "Paste YAML…"):
//   POST /api/v1/place sorts their documents into the panes by kind; a dialog shows what goes where first.
// Text already in a pane is never dropped silently: the dialog asks whether to replace it or add to it,
// and Ctrl/Cmd+Z in an editor undoes an insertion. Uses window.APPage from static/app.js.
(function () {
  "use strict";

  var TARGETS = ["policy", "binding", "params", "object", "namespace"];
  var ONE_OBJECT = {object: true};        // panes that take one object: adding to them is not offered
  var templates = [];
  var templatesFor = null;                // the Kubernetes version the templates were fetched for

  function api() { return window.APPage; }

  function kubernetesVersion() {
    var select = document.getElementById("kubernetes-version");
    return select ? select.value : "";
  }

  function paneLabel(name) {
    var textarea = document.getElementById("pane-" + name);
    return textarea ? textarea.dataset.label.replace(/ \(YAML\)$/, "") : name;
  }

  function paneText(name) {
    var cm = api().editor(name);
    if (cm) { return cm.getValue(); }
    var textarea = document.getElementById("pane-" + name);
    return textarea ? textarea.value : "";
  }

  function openPane(name) {
    var details = document.querySelector('details[data-pane="' + name + '"]');
    if (details && !details.open) { details.open = true; }
    var cm = api().editor(name);
    if (cm) { cm.refresh(); }
  }

  // Put text into a pane: "replace" its text (undoable), or "add" it after the text as another document.
  function putText(name, text, how) {
    var current = paneText(name);
    if (how !== "add" || !current.trim()) {
      api().setPane(name, text);
      openPane(name);
      return;
    }
    var addition = (/\n$/.test(current) ? "" : "\n") + "---\n" + text;
    var cm = api().editor(name);
    if (cm) {
      var last = cm.lastLine();
      cm.replaceRange(addition, {line: last, ch: cm.getLine(last).length});
      cm.save();
    } else {
      document.getElementById("pane-" + name).value = current + addition;
    }
    openPane(name);
  }

  // --- The dialog that asks before text is replaced ----------------------------------------------

  // ask({title, body: Node, replace: label, add: label or null}) -> Promise of "replace", "add" or "cancel"
  function ask(options) {
    var dialog = document.getElementById("place-dialog");
    return new Promise(function (resolve) {
      if (!dialog || !dialog.showModal) {
        resolve(window.confirm(options.title + "\n\n" + options.body.textContent) ? "replace" : "cancel");
        return;
      }
      document.getElementById("place-title").textContent = options.title;
      var body = document.getElementById("place-body");
      body.textContent = "";
      body.appendChild(options.body);
      var buttons = {replace: document.getElementById("place-replace"), add: document.getElementById("place-add"),
                     cancel: document.getElementById("place-cancel")};
      buttons.replace.textContent = options.replace;
      buttons.add.hidden = !options.add;
      buttons.add.textContent = options.add || "";
      var finish = function (answer) {
        Object.keys(buttons).forEach(function (key) { buttons[key].onclick = null; });
        dialog.onclose = null;
        if (dialog.open) { dialog.close(); }
        resolve(answer);
      };
      Object.keys(buttons).forEach(function (key) {
        buttons[key].onclick = function () { finish(key); };
      });
      dialog.onclose = function () { finish("cancel"); };   // Esc
      dialog.showModal();
      buttons.replace.focus();
    });
  }

  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = text; }
    if (className) { node.className = className; }
    return node;
  }

  // --- Templates -----------------------------------------------------------------------------------

  // Each pane's menu: a button per template (those the version lacks disabled, saying so).
  function fillMenus() {
    document.querySelectorAll("details[data-template-pane]").forEach(function (menu) {
      var pane = menu.dataset.templatePane;
      var list = menu.querySelector("ul");
      list.textContent = "";
      templates.filter(function (t) { return t.pane === pane; }).forEach(function (t) {
        var button = element("button", t.title);
        button.type = "button";
        button.dataset.template = t.id;
        button.disabled = !t.available;
        if (t.note) {
          button.title = t.note;
        }
        var li = element("li");
        li.appendChild(button);
        if (!t.available || t.note) {
          li.appendChild(element("span", t.available ? "off by default in " + templatesFor :
            "not in " + templatesFor, "muted"));
        }
        list.appendChild(li);
      });
      menu.querySelector(".template-version").textContent = "Kubernetes " + templatesFor;
    });
  }

  function fetchTemplates() {
    var version = kubernetesVersion();
    if (version === templatesFor && templates.length) { return; }
    fetch("/api/v1/templates?kubernetesVersion=" + encodeURIComponent(version), {credentials: "same-origin"})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) {
        if (!body) { return; }
        templates = body.templates;
        templatesFor = body.kubernetesVersion;
        fillMenus();
      })
      .catch(function () { /* the menus stay empty; the panes work as before */ });
  }

  function insertTemplate(pane, id) {
    var template = templates.filter(function (t) { return t.id === id; })[0];
    if (!template || !template.available) { return; }
    var label = paneLabel(pane);
    var done = function (how) {
      if (how === "cancel") { return; }
      putText(pane, template.text, how);
      var cm = api().editor(pane);
      if (cm) { cm.focus(); }
      api().fileStatus((how === "add" ? "Added the " + template.title + " template to the " : "Inserted the " +
        template.title + " template into the ") + label + " pane, for Kubernetes " + templatesFor +
        (template.note ? " (" + template.note + ")" : "") + ". Ctrl+Z in the editor undoes it.", true);
    };
    if (!paneText(pane).trim()) {
      done("replace");
      return;
    }
    var body = element("p", "The " + label + " pane already has text. " + (ONE_OBJECT[pane] ?
      "It holds one object: replace it with the template? (Ctrl+Z in the editor brings it back.)" :
      "Replace it with the template, or add the template after it as another document?"));
    ask({title: "Insert the " + template.title + " template", body: body, replace: "Replace the pane's text",
         add: ONE_OBJECT[pane] ? null : "Add after the text"}).then(done);
  }

  function closeMenu(menu, focus) {
    menu.open = false;
    if (focus) { menu.querySelector("summary").focus(); }
  }

  function setUpTemplates() {
    TARGETS.forEach(function (pane) {
      var load = document.querySelector('.pane[data-pane="' + pane + '"] .pane-load');
      if (!load) { return; }
      var menu = element("details", null, "menu template-menu");
      menu.dataset.templatePane = pane;
      var summary = element("summary", "Template");
      summary.title = "Insert a template of a common object, for the selected Kubernetes version";
      summary.appendChild(element("span", " into the " + paneLabel(pane) + " pane", "visually-hidden"));
      var body = element("div", null, "menu-body");
      body.setAttribute("role", "group");
      body.setAttribute("aria-label", "Templates for the " + paneLabel(pane) + " pane");
      body.appendChild(element("p", null, "muted template-version"));
      body.appendChild(element("ul", null, "template-list"));
      menu.appendChild(summary);
      menu.appendChild(body);
      menu.addEventListener("click", function (event) {
        var button = event.target.closest("button[data-template]");
        if (!button) { return; }
        closeMenu(menu, false);
        insertTemplate(pane, button.dataset.template);
      });
      menu.addEventListener("keydown", function (event) {
        if (event.key === "Escape" && menu.open) {
          event.stopPropagation();
          closeMenu(menu, true);
        }
      });
      menu.addEventListener("toggle", function () {    // one menu open at a time
        if (!menu.open) { return; }
        document.querySelectorAll("details.template-menu[open]").forEach(function (other) {
          if (other !== menu) { other.open = false; }
        });
      });
      load.appendChild(menu);              // (beside Load file, wrapping with it)
    });
    document.addEventListener("click", function (event) {   // a click elsewhere closes an open menu
      document.querySelectorAll("details.template-menu[open]").forEach(function (menu) {
        if (event.isTrusted && !menu.contains(event.target)) { menu.open = false; }
      });
    });
    var version = document.getElementById("kubernetes-version");
    if (version) { version.addEventListener("change", fetchTemplates); }
    fetchTemplates();
  }

  // --- Plain manifests sorted into the panes --------------------------------------------------------

  function describe(item) {
    return item.kind + (item.name ? " " + item.name : "");
  }

  // What goes where: a table of the placed documents, and a list of those not placed with the reason.
  function placementTable(answer, source) {
    var box = element("div", null, "placement");
    box.appendChild(element("p", answer.placed.length + " of the " +
      (answer.placed.length + answer.notPlaced.length) + " documents of " + source +
      " go into the panes (Kubernetes " + answer.kubernetesVersion + ")."));
    if (answer.placed.length) {
      var table = element("table", null, "placement-table");
      var head = table.createTHead().insertRow();
      ["Document", "Object", "Pane"].forEach(function (text) {
        var th = element("th", text);
        th.scope = "col";
        head.appendChild(th);
      });
      var tbody = table.createTBody();
      answer.placed.forEach(function (item) {
        var row = tbody.insertRow();
        row.dataset.placedPane = item.pane;
        row.insertCell().textContent = item.where;
        row.insertCell().textContent = describe(item);
        var pane = row.insertCell();
        pane.textContent = paneLabel(item.pane);
        if (paneText(item.pane).trim()) {
          pane.appendChild(element("span", " (has text)", "muted"));
        }
      });
      box.appendChild(table);
    }
    if (answer.notPlaced.length) {
      box.appendChild(element("p", "Not placed:", "placement-skipped-title"));
      var list = element("ul", null, "placement-skipped");
      answer.notPlaced.forEach(function (item) {
        var li = element("li", (item.kind ? describe(item) + ", " : "") + item.where + ": " + item.reason);
        li.dataset.notPlaced = item.kind || "";
        list.appendChild(li);
      });
      box.appendChild(list);
    }
    return box;
  }

  function report(answer, source, how) {
    var old = document.getElementById("place-report");
    if (old) { old.remove(); }
    var box = element("div", null, "place-report");
    box.id = "place-report";
    box.setAttribute("role", "status");
    var panes = [];
    answer.placed.forEach(function (item) {
      if (panes.indexOf(item.pane) < 0) { panes.push(item.pane); }
    });
    box.appendChild(element("p", (how === "add" ? "Added " : "Imported ") + source + " into the panes " +
      panes.map(paneLabel).join(", ") + " (Ctrl+Z in an editor undoes it):"));
    var list = element("ul");
    answer.placed.forEach(function (item) {
      list.appendChild(element("li", describe(item) + " (" + item.where + ") → " + paneLabel(item.pane)));
    });
    answer.notPlaced.forEach(function (item) {
      var li = element("li", (item.kind ? describe(item) + " (" + item.where + ")" : item.where) + ": " + item.reason,
        "not-placed");
      list.appendChild(li);
    });
    box.appendChild(list);
    var close = element("button", "Dismiss", "small");
    close.type = "button";
    close.addEventListener("click", function () { box.remove(); });
    box.appendChild(close);
    var status = document.getElementById("import-status");
    status.parentNode.insertBefore(box, status.nextSibling);
    api().fileStatus("", true);
  }

  function place(answer, source) {
    var targets = [];
    answer.placed.forEach(function (item) {
      if (targets.indexOf(item.pane) < 0) { targets.push(item.pane); }
    });
    if (!targets.length) {
      api().fileStatus("Nothing from " + source + " was placed: " + answer.notPlaced.map(function (item) {
        return item.where + ": " + item.reason;
      }).join("; ") + ". The panes are unchanged.");
      return;
    }
    var filled = targets.filter(function (pane) { return paneText(pane).trim(); });
    var addable = filled.some(function (pane) { return !ONE_OBJECT[pane]; });
    var body = placementTable(answer, source);
    if (addable && filled.some(function (pane) { return ONE_OBJECT[pane]; })) {
      body.appendChild(element("p", "Adding still replaces the Object pane, which holds one object. " +
        "Ctrl+Z in an editor brings its text back.", "muted"));
    }
    ask({
      title: "Import " + source,
      body: body,
      replace: filled.length ? "Replace those panes' text" : "Put into the panes",
      add: addable ? "Add to those panes" : null
    }).then(function (how) {
      if (how === "cancel") { return; }
      targets.forEach(function (pane) {
        putText(pane, answer.panes[pane], ONE_OBJECT[pane] ? "replace" : how);
      });
      report(answer, source, how);
      api().evaluate();
    });
  }

  // Sort the text's documents into the panes (the server says what goes where), then ask and place.
  function importText(text, source) {
    api().fileStatus("Reading " + source + "…", true);
    fetch("/api/v1/place", {
      method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"},
      // (the Policy, Binding and Params panes tell the file's params and custom resources apart)
      body: JSON.stringify({text: text, kubernetesVersion: kubernetesVersion(), policy: paneText("policy"),
                            binding: paneText("binding"), params: paneText("params")})
    }).then(function (response) {
      return response.json().catch(function () {
        return {error: "the server answered " + response.status};
      }).then(function (body) { return {ok: response.ok, body: body}; });
    }).then(function (answer) {
      if (!answer.ok) {
        api().fileStatus("Could not import " + source + ": " + (answer.body.error || "unexpected answer") +
          ". The panes are unchanged.");
        return;
      }
      api().fileStatus("", true);
      place(answer.body, source);
    }).catch(function () {
      api().fileStatus("Could not import " + source + ": the server did not answer. The panes are unchanged.");
    });
  }

  function setUpPaste() {
    var button = document.getElementById("paste-yaml");
    var dialog = document.getElementById("paste-dialog");
    if (!button || !dialog || !dialog.showModal) {
      if (button) { button.hidden = true; }
      return;
    }
    var textarea = document.getElementById("paste-text");
    button.addEventListener("click", function () {
      dialog.showModal();
      textarea.focus();
    });
    document.getElementById("paste-cancel").addEventListener("click", function () { dialog.close(); });
    // Ctrl/Cmd+Enter in the dialog sorts, rather than evaluating the page behind it (window's capture phase
    // comes before the page's own shortcut, on the document).
    window.addEventListener("keydown", function (event) {
      if (dialog.open && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        event.stopPropagation();
        document.getElementById("paste-sort").click();
      }
    }, true);
    document.getElementById("paste-sort").addEventListener("click", function () {
      var text = textarea.value;
      if (!text.trim()) {
        textarea.focus();
        return;
      }
      dialog.close();
      textarea.value = "";
      importText(text, "the pasted YAML");
    });
  }

  window.APLoading = {importText: importText};

  document.addEventListener("DOMContentLoaded", function () {
    if (!api() || !document.getElementById("playground")) { return; }
    setUpTemplates();
    setUpPaste();
  });
}());
