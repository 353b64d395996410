// Admission Playground page behaviour: code editors over the form's textareas,
// the Ctrl/Cmd+Enter shortcut, and problem markers in the editors.
// The form stays the state: every editor writes its text back to its textarea on change.
// Nothing is lost: the panes are kept per tab as they are typed (sessionStorage), each evaluation is a
// history entry (Back and Forward bring back its panes and result), and named drafts are kept in
// localStorage. Files load into a pane (button or drop); Share gives a link to copy; a theme switch.
(function () {
  "use strict";

  var editors = {};        // pane name -> CodeMirror instance
  var markers = [];        // cleanup functions for the current problem markers
  var FIELDS = ["policy", "binding", "params", "object", "oldObject", "namespace", "request", "testCases"];
  var SELECTS = {kubernetesVersion: "kubernetes-version", operation: "operation"};
  var pristine = null;     // the values the page was served with (an example, a shared snapshot)
  var entryId = null;      // this history entry's id (history.state.id)
  var submitted = null;    // the values of the evaluation under way
  var record = true;       // whether the evaluation under way makes a history entry
  var userAsked = false;   // whether an evaluation was asked for since the page loaded (phones scroll to it)
  var typingTimer = null;
  var generation = 0;      // counts Back/Forward moves: an evaluation asked for before one is not shown
  var requestGeneration = 0;
  var awaiting = false;
  var servedResult = true; // the result region is still the one the page was served with    // an evaluation's answer is awaited: its swap makes the history entry

  function form() {
    return document.getElementById("playground");
  }

  function setUpEditor(textarea) {
    if (typeof CodeMirror === "undefined") {
      return;              // the plain textareas still work
    }
    var cm = CodeMirror.fromTextArea(textarea, {
      mode: "yaml",
      lineNumbers: true,
      matchBrackets: true,
      autoCloseBrackets: true,
      styleActiveLine: true,
      indentUnit: 2,
      tabSize: 2,
      indentWithTabs: false,
      lineWrapping: false,
      viewportMargin: Infinity,
      screenReaderLabel: textarea.dataset.label,
      gutters: ["CodeMirror-linenumbers", "problem-gutter"],
      extraKeys: {
        // YAML wants spaces: Tab indents, Shift-Tab dedents.
        "Tab": function (editor) {
          if (editor.somethingSelected()) {
            editor.indentSelection("add");
          } else {
            editor.replaceSelection("  ", "end");
          }
        },
        "Shift-Tab": function (editor) { editor.indentSelection("subtract"); }
      }
    });
    cm.on("change", function () { cm.save(); typed(); });
    // Keyboard users leave the editor with Esc then Tab (or Shift-Tab).
    cm.on("keydown", function (editor, event) {
      if (event.key === "Escape") {
        editor.state.tabLeaves = true;
      } else if (event.key === "Tab" && editor.state.tabLeaves) {
        event.codemirrorIgnore = true;
        editor.state.tabLeaves = false;
      } else if (["Shift", "Control", "Alt", "Meta"].indexOf(event.key) < 0) {
        editor.state.tabLeaves = false;
      }
    });
    cm.on("focus", function (editor) { editor.state.tabLeaves = false; });
    var details = textarea.closest("details");
    if (details) {
      details.addEventListener("toggle", function () {
        if (details.open) { cm.refresh(); }
      });
    }
    cm.getWrapperElement().dataset.pane = textarea.dataset.editor;
    editors[textarea.dataset.editor] = cm;
  }

  // options.record false: evaluate without a new history entry (restoring one whose result was not kept)
  function evaluate(options) {
    var f = form();
    if (!f) { return; }
    record = !(options && options.record === false);
    Object.keys(editors).forEach(function (name) { editors[name].save(); });
    if (f.requestSubmit) {
      f.requestSubmit(document.getElementById("evaluate"));
    } else {
      f.submit();
    }
  }

  function clearMarkers() {
    markers.forEach(function (undo) { undo(); });
    markers = [];
  }

  function markProblem(item) {
    var cm = editors[item.dataset.pane];
    var line = parseInt(item.dataset.line, 10);
    if (!cm || isNaN(line)) { return; }
    line = Math.min(Math.max(line - 1, 0), cm.lineCount() - 1);
    var column = parseInt(item.dataset.column, 10);
    var severity = item.dataset.severity === "warning" ? "warning" : "error";
    var marker = document.createElement("span");
    marker.className = "problem-marker problem-" + severity;
    marker.textContent = severity === "error" ? "●" : "▲";
    marker.title = item.dataset.message;
    marker.setAttribute("role", "img");
    marker.setAttribute("aria-label", severity + ": " + item.dataset.message);
    var handle = cm.setGutterMarker(line, "problem-gutter", marker);
    cm.addLineClass(handle, "background", "problem-line");
    var from = isNaN(column) ? 0 : Math.max(column - 1, 0);
    var text = cm.getLine(line) || "";
    var mark = null;
    if (from < text.length) {
      mark = cm.markText({line: line, ch: from}, {line: line, ch: text.length},
        {className: "problem-text problem-text-" + severity, title: item.dataset.message});
    }
    var details = cm.getTextArea().closest("details");
    if (details && !details.open) { details.open = true; }
    markers.push(function () {
      cm.setGutterMarker(handle, "problem-gutter", null);
      cm.removeLineClass(handle, "background", "problem-line");
      if (mark) { mark.clear(); }
    });
  }

  function showResult() {
    clearMarkers();
    var result = document.getElementById("result");
    if (!result) { return; }
    result.querySelectorAll("[data-problem]").forEach(markProblem);
    // Problems in the Test cases pane are listed with the test cases matrix.
    var cases = document.getElementById("testcases-result");
    if (cases) { cases.querySelectorAll("[data-problem]").forEach(markProblem); }
    var announce = document.getElementById("announce");
    var banner = result.querySelector("[data-banner]");
    if (announce && banner) {
      var summaries = document.querySelectorAll("[data-checks-summary], [data-testcases-summary]");
      announce.textContent = [banner].concat(Array.prototype.slice.call(summaries)).map(function (el) {
        return el.textContent.replace(/\s+/g, " ").trim();
      }).join(". ");
    }
  }

  function setPane(name, text) {
    var cm = editors[name];
    if (cm) {
      cm.setValue(text);  // undoable with Ctrl/Cmd+Z in that editor
      cm.save();
    } else {
      var textarea = document.getElementById("pane-" + name);
      if (textarea) { textarea.value = text; }
    }
    var details = document.querySelector('details[data-pane="' + name + '"]');
    if (details && text.trim() && !details.open) {
      details.open = true;
      if (cm) { cm.refresh(); }
    }
  }

  // A test case's Open button: its objects, params, namespace and request go into the panes
  // (the policy and binding stay), then the main view evaluates it.
  function openCase(button) {
    var values;
    try {
      values = JSON.parse(button.dataset.openCase);
    } catch (e) {
      return;
    }
    ["object", "oldObject", "params", "namespace", "request"].forEach(function (name) {
      if (typeof values[name] === "string") { setPane(name, values[name]); }
    });
    var operation = document.getElementById("operation");
    if (operation) { operation.value = values.operation || ""; }
    evaluate();
    var editorsRegion = document.getElementById("editors");
    if (editorsRegion) { editorsRegion.scrollIntoView({block: "start"}); }
  }

  // "Add the current request as a test case": the server appends it to the pane's text.
  function addCase(button) {
    var f = form();
    var status = document.getElementById("add-case-status");
    if (!f) { return; }
    Object.keys(editors).forEach(function (name) { editors[name].save(); });
    fetch(button.dataset.url, {method: "POST", body: new FormData(f), credentials: "same-origin"})
      .then(function (response) {
        return response.json().then(function (body) { return {ok: response.ok, body: body}; });
      })
      .then(function (answer) {
        if (!answer.ok) {
          if (status) { status.textContent = answer.body.error || "The test case could not be added."; }
          return;
        }
        setPane("testCases", answer.body.testCases);
        var cm = editors.testCases;
        if (cm) { cm.setCursor(cm.lineCount() - 1, 0); }
        if (status) { status.textContent = "Added; evaluate to run the test cases."; }
      })
      .catch(function () {
        if (status) { status.textContent = "The test case could not be added: the server did not answer."; }
      });
  }

  function goTo(item) {
    var cm = editors[item.dataset.pane];
    var line = parseInt(item.dataset.line, 10);
    if (!cm) {
      var textarea = document.getElementById("pane-" + item.dataset.pane);
      if (textarea) { textarea.focus(); }
      return;
    }
    var details = cm.getTextArea().closest("details");
    if (details && !details.open) { details.open = true; cm.refresh(); }
    if (!isNaN(line)) {
      var column = parseInt(item.dataset.column, 10);
      cm.setCursor({line: line - 1, ch: isNaN(column) ? 0 : column - 1});
    }
    cm.focus();
    cm.getWrapperElement().scrollIntoView({block: "center"});
  }

  // --- Scenario files: import (file picker or drop) and export --------------------------------

  var PANE_NAMES = ["policy", "binding", "params", "object", "oldObject", "namespace", "request"];

  function fileStatus(message, ok) {
    var status = document.getElementById("import-status");
    if (!status) { return; }
    status.textContent = message;
    status.classList.toggle("ok", !!ok);
    status.hidden = !message;
  }

  function paneText(value) {
    if (value === undefined || value === null) { return ""; }
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  // Fill every pane from an imported scenario (empty panes are cleared), then evaluate.
  function openScenario(scenario) {
    PANE_NAMES.forEach(function (name) {
      var text = paneText(scenario[name]);
      var cm = editors[name];
      var textarea = document.getElementById("pane-" + name);
      if (cm) {
        cm.setValue(text);
        cm.save();
      } else if (textarea) {
        textarea.value = text;
      }
      var details = textarea && textarea.closest("details");
      if (details && text.trim() && !details.open) {
        details.open = true;
        if (cm) { cm.refresh(); }
      }
    });
    setPane("testCases", paneText(scenario.testCases));  // a stored list shows as JSON, which is YAML too
    var version = document.getElementById("kubernetes-version");
    if (version && scenario.kubernetesVersion) {
      var known = Array.prototype.some.call(version.options, function (o) {
        return o.value === scenario.kubernetesVersion;
      });
      if (known) { version.value = scenario.kubernetesVersion; }
    }
    var operation = document.getElementById("operation");
    if (operation) { operation.value = ""; }   // the operation travels in the Request pane
    evaluate();
  }

  // Send the file to the import API; the editors change only when the file is a scenario.
  function importFile(file) {
    if (!file) { return; }
    var body = new FormData();
    body.append("file", file);
    fileStatus("Importing " + file.name + "…", true);
    fetch("/api/v1/scenarios/import", {method: "POST", body: body, credentials: "same-origin"})
      .then(function (response) {
        return response.json().catch(function () {
          return {error: "the server answered " + response.status};
        }).then(function (data) { return {ok: response.ok, data: data}; });
      })
      .then(function (answer) {
        if (!answer.ok) {
          fileStatus("Could not import " + file.name + ": " + (answer.data.error || "not a scenario file") +
            ". The panes are unchanged.");
          return;
        }
        openScenario(answer.data);
        fileStatus("Imported " + file.name + ".", true);
      })
      .catch(function () {
        fileStatus("Could not import " + file.name + ": the server did not answer. The panes are unchanged.");
      });
  }

  function exportScenario() {
    exportValues(currentValues(), "scenario");
  }

  // Download the scenario file of these values (the export route makes the file).
  function exportValues(values, name) {
    var f = form();
    var fields = new URLSearchParams();
    Object.keys(values).forEach(function (key) { fields.append(key, values[key] || ""); });
    fetch(f.querySelector("#export").getAttribute("formaction"), {
      method: "POST", body: fields, credentials: "same-origin"
    }).then(function (response) {
      var type = response.headers.get("Content-Type") || "";
      if (!response.ok || type.indexOf("yaml") < 0) {
        fileStatus("Could not export: " + (response.ok ? "unexpected answer" : "every pane is empty or the " +
          "scenario is over the size limit") + ".");
        return null;
      }
      return response.blob();
    }).then(function (blob) {
      if (!blob) { return; }
      var link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = name + ".yaml";
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
      fileStatus("", true);
    }).catch(function () { fileStatus("Could not export: the server did not answer."); });
  }

  function hasFiles(event) {
    var types = event.dataTransfer && event.dataTransfer.types;
    return !!types && Array.prototype.indexOf.call(types, "Files") >= 0;
  }

  function setUpFiles() {
    var input = document.getElementById("import-file");
    if (input) {
      input.addEventListener("change", function () {
        dropFile(input.files && input.files[0], null);   // a scenario file, or plain manifests
        input.value = "";                    // the same file can be chosen again
      });
    }
    var exportButton = document.getElementById("export");
    if (exportButton) {
      exportButton.addEventListener("click", function (event) {
        event.preventDefault();
        exportScenario();
      });
    }
    // Dropping a file anywhere on the page imports it (an editor would otherwise insert its text).
    var depth = 0;
    document.addEventListener("dragenter", function (event) {
      if (!hasFiles(event)) { return; }
      depth += 1;
      document.documentElement.classList.add("dropping");
    }, true);
    document.addEventListener("dragleave", function (event) {
      if (!hasFiles(event)) { return; }
      depth = Math.max(depth - 1, 0);
      if (!depth) { document.documentElement.classList.remove("dropping"); }
    }, true);
    document.addEventListener("dragover", function (event) {
      if (hasFiles(event)) { event.preventDefault(); }
    }, true);
    document.addEventListener("drop", function (event) {
      if (!hasFiles(event)) { return; }
      event.preventDefault();
      event.stopPropagation();
      depth = 0;
      document.documentElement.classList.remove("dropping");
      var target = event.target && event.target.closest ?
        event.target.closest(".pane[data-pane], .CodeMirror[data-pane]") : null;
      dropFile(event.dataTransfer.files[0], target ? target.dataset.pane : null);
    }, true);
  }

  // --- Nothing lost: the tab's panes, history entries, drafts -----------------------------------

  function storage(kind) {
    try {
      var s = window[kind];
      s.getItem("ap:probe");
      return s;
    } catch (e) {
      return null;           // storage refused: the page works, nothing is kept
    }
  }

  function readJSON(store, key, fallback) {
    if (!store) { return fallback; }
    try {
      var text = store.getItem(key);
      return text === null ? fallback : JSON.parse(text);
    } catch (e) {
      return fallback;
    }
  }

  function writeJSON(store, key, value) {
    if (!store) { return false; }
    try {
      store.setItem(key, JSON.stringify(value));
      return true;
    } catch (e) {
      return false;          // over the quota: the older entries' results are dropped below
    }
  }

  function currentValues() {
    var values = {};
    FIELDS.forEach(function (name) {
      var cm = editors[name];
      var textarea = document.getElementById("pane-" + name);
      values[name] = cm ? cm.getValue() : (textarea ? textarea.value : "");
    });
    Object.keys(SELECTS).forEach(function (name) {
      var select = document.getElementById(SELECTS[name]);
      values[name] = select ? select.value : "";
    });
    return values;
  }

  function sameValues(a, b) {
    if (!a || !b) { return false; }
    return FIELDS.concat(Object.keys(SELECTS)).every(function (name) {
      return (a[name] || "").replace(/\r\n/g, "\n").trim() === (b[name] || "").replace(/\r\n/g, "\n").trim();
    });
  }

  function isDirty() {
    return pristine !== null && !sameValues(currentValues(), pristine);
  }

  // Put values in the panes and selectors (no evaluation); empty folded panes are folded again.
  function applyValues(values) {
    FIELDS.forEach(function (name) {
      var text = typeof values[name] === "string" ? values[name] : "";
      var cm = editors[name];
      if (cm) {
        if (cm.getValue() !== text) { cm.setValue(text); }
        cm.save();
      } else {
        var textarea = document.getElementById("pane-" + name);
        if (textarea) { textarea.value = text; }
      }
      var details = document.querySelector('details[data-pane="' + name + '"]');
      if (details && text.trim() && !details.open) {
        details.open = true;
        if (cm) { cm.refresh(); }
      }
    });
    Object.keys(SELECTS).forEach(function (name) {
      var select = document.getElementById(SELECTS[name]);
      if (!select || typeof values[name] !== "string") { return; }
      var known = Array.prototype.some.call(select.options, function (o) { return o.value === values[name]; });
      if (known) { select.value = values[name]; }
    });
    showEdited();
  }

  // The example's title and introduction belong to the example: once its panes are edited they go,
  // from the page and from the tab's title.
  var servedTitle = null;
  function showEdited() {
    var dirty = isDirty();
    var intro = document.getElementById("example-intro");
    if (intro) { intro.hidden = dirty; }
    if (servedTitle === null) { servedTitle = document.title; }
    document.title = dirty && intro ? "Admission Playground" : servedTitle;
    document.documentElement.classList.toggle("edited", dirty);
  }

  function newId() {
    return Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  }

  // The result regions as shown for a history entry (the result, the test cases matrix, a workshop
  // exercise's checks), kept as copies of their elements while the page is open: no markup is written
  // from a string. After a reload the entry's panes are evaluated again instead.
  var REGIONS = ["result", "testcases-result", "checks"];
  var shown = {};          // entry id -> {region id: a copy of its element}
  var shownOrder = [];

  function keepResult(id) {
    if (!document.getElementById("result")) { return; }
    var kept = {};
    REGIONS.forEach(function (region) {
      var el = document.getElementById(region);
      if (el) { kept[region] = el.cloneNode(true); }
    });
    shownOrder = shownOrder.filter(function (x) { return x !== id; });
    shownOrder.push(id);
    shown[id] = kept;
    while (shownOrder.length > 50) { delete shown[shownOrder.shift()]; }
  }

  function restoreResult(id) {
    var kept = shown[id];
    if (!kept || !kept.result || !document.getElementById("result")) { return false; }
    servedResult = false;
    REGIONS.forEach(function (region) {
      var el = document.getElementById(region);
      if (!el || !kept[region]) { return; }
      var fresh = kept[region].cloneNode(true);
      fresh.removeAttribute("hx-swap-oob");
      el.replaceWith(fresh);
      if (window.htmx) { window.htmx.process(fresh); }
    });
    showResult();
    return true;
  }

  // What was typed in this entry since it was made: sessionStorage, so a reload keeps it.
  function typed() {
    if (entryId === null) { return; }
    clearTimeout(typingTimer);
    typingTimer = setTimeout(function () {
      writeJSON(storage("sessionStorage"), "ap:live:" + entryId, currentValues());
      showEdited();
    }, 200);
  }

  // Show a history entry: its panes (as last typed in this tab) and its result.
  function showEntry(state) {
    entryId = state.id;
    var live = readJSON(storage("sessionStorage"), "ap:live:" + state.id, null);
    var evaluatedValues = state.values || live || currentValues();
    applyValues(live || evaluatedValues);
    if (restoreResult(state.id)) { return; }
    if (servedResult && sameValues(evaluatedValues, pristine)) {
      keepResult(state.id);             // the page came with this very result
    } else {
      generation += 1;
      evaluate({record: false});
    }
  }

  // Each evaluation asked for on the page is a history entry with the values evaluated.
  function evaluated() {
    servedResult = false;
    showEdited();
    var values = submitted || currentValues();
    submitted = null;
    if (record && entryId !== null) {
      var session = storage("sessionStorage");
      if (session) { session.removeItem("ap:live:" + entryId); }  // the edits are the new entry's values
      entryId = newId();
      try {
        history.pushState({ap: 1, id: entryId, values: values}, "", location.href);
      } catch (e) {     // panes too large for a history entry: the entry has the result, not the panes
        history.pushState({ap: 1, id: entryId, values: null}, "", location.href);
      }
      writeJSON(session, "ap:live:" + entryId, currentValues());
    }
    record = true;
    keepResult(entryId);
    if (userAsked && window.matchMedia && window.matchMedia("(max-width: 959px)").matches) {
      var result = document.getElementById("result");
      if (result) { result.scrollIntoView({block: "start"}); }
    }
  }

  function setUpHistory() {
    form().addEventListener("change", function (event) {
      if (event.target.tagName === "SELECT") { typed(); }
    });
    pristine = currentValues();
    showEdited();
    var state = history.state;
    if (state && state.ap && state.id) {
      showEntry(state);          // a reload, or a page brought back by Back or Forward
    } else {
      entryId = newId();
      try {
        history.replaceState({ap: 1, id: entryId, values: pristine}, "", location.href);
      } catch (e) {
        history.replaceState({ap: 1, id: entryId, values: null}, "", location.href);
      }
      keepResult(entryId);
    }
    window.addEventListener("popstate", function (event) {
      if (event.state && event.state.ap && event.state.id) {
        clearTimeout(typingTimer);
        generation += 1;
        userAsked = false;
        showEntry(event.state);
      }
    });
  }

  // --- Named drafts (localStorage) ---------------------------------------------------------------

  var DRAFTS = "ap:drafts";

  function drafts() {
    var list = readJSON(storage("localStorage"), DRAFTS, []);
    return Array.isArray(list) ? list : [];
  }

  function draftsStatus(message) {
    var status = document.getElementById("drafts-status");
    if (status) { status.textContent = message; }
  }

  function saveDraft(name, values) {
    name = (name || "").trim();
    if (!name) {
      draftsStatus("Give the draft a name.");
      return false;
    }
    var list = drafts();
    var existing = list.filter(function (d) { return d.name === name; })[0];
    if (existing && !window.confirm("Replace the draft “" + name + "” saved " +
        new Date(existing.saved).toLocaleString() + "?")) {
      return false;
    }
    list = list.filter(function (d) { return d.name !== name; });
    list.unshift({name: name, saved: new Date().toISOString(), values: values});
    if (!writeJSON(storage("localStorage"), DRAFTS, list)) {
      draftsStatus("The draft could not be saved: this browser's storage is full or refused.");
      return false;
    }
    draftsStatus("Saved “" + name + "”.");
    renderDrafts();
    return true;
  }

  function renderDrafts() {
    var ul = document.getElementById("draft-list");
    if (!ul) { return; }
    ul.textContent = "";
    var list = drafts();
    if (!list.length) {
      var empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = "No drafts yet.";
      ul.appendChild(empty);
    }
    list.forEach(function (d) {
      var li = document.createElement("li");
      li.dataset.draft = d.name;
      var name = document.createElement("span");
      name.className = "draft-name";
      name.textContent = d.name;
      var when = document.createElement("time");
      when.className = "muted";
      when.dateTime = d.saved;
      when.textContent = new Date(d.saved).toLocaleString();
      li.appendChild(name);
      li.appendChild(when);
      [["open", "Open"], ["export", "Export"], ["delete", "Delete"]].forEach(function (action) {
        var button = document.createElement("button");
        button.type = "button";
        button.dataset.draftAction = action[0];
        button.textContent = action[1];
        button.setAttribute("aria-label", action[1] + " the draft " + d.name);
        li.appendChild(button);
      });
      ul.appendChild(li);
    });
  }

  function draftAction(button) {
    var name = button.closest("[data-draft]").dataset.draft;
    var draft = drafts().filter(function (d) { return d.name === name; })[0];
    if (!draft) { renderDrafts(); return; }
    var action = button.dataset.draftAction;
    if (action === "open") {
      applyValues(draft.values);
      var input = document.getElementById("draft-name");
      if (input) { input.value = draft.name; }
      draftsStatus("Opened “" + name + "”.");
      evaluate();
    } else if (action === "delete") {
      if (!window.confirm("Delete the draft “" + name + "”?")) { return; }
      writeJSON(storage("localStorage"), DRAFTS, drafts().filter(function (d) { return d.name !== name; }));
      draftsStatus("Deleted “" + name + "”.");
      renderDrafts();
    } else if (action === "export") {
      exportValues(draft.values, name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "draft");
    }
  }

  function setUpDrafts() {
    renderDrafts();
    var save = document.getElementById("draft-save");
    var input = document.getElementById("draft-name");
    if (save && input) {
      save.addEventListener("click", function () { saveDraft(input.value, currentValues()); });
      input.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
          event.preventDefault();                 // not the form's submission
          saveDraft(input.value, currentValues());
        }
      });
    }
    var list = document.getElementById("draft-list");
    if (list) {
      list.addEventListener("click", function (event) {
        var button = event.target.closest("[data-draft-action]");
        if (button) { draftAction(button); }
      });
    }
    // The menu closes with Esc (focus back on its summary) and with a click elsewhere.
    var menu = document.getElementById("drafts");
    if (menu) {
      menu.addEventListener("keydown", function (event) {
        if (event.key === "Escape" && menu.open) {
          menu.open = false;
          menu.querySelector("summary").focus();
        }
      });
      document.addEventListener("click", function (event) {
        // (a person's click: the page's own clicks, such as a download's, leave it open)
        if (event.isTrusted && menu.open && !menu.contains(event.target) && !event.target.closest("dialog")) {
          menu.open = false;
        }
      });
    }
    window.addEventListener("storage", function (event) {  // drafts saved in another tab
      if (event.key === DRAFTS) { renderDrafts(); }
    });
  }

  // A gallery example replaces the panes: with edits not kept in a draft, ask first.
  function askBeforeLeaving(href, title) {
    var dialog = document.getElementById("leave-dialog");
    if (!dialog || !dialog.showModal) {
      if (window.confirm("Open “" + title + "”? Your edits stay in this tab's history (Back).")) {
        location.href = href;
      }
      return;
    }
    document.getElementById("leave-text").textContent =
      "Open the example “" + title + "”? The panes have edits that are not saved as a draft.";
    var finish = function (answer) {
      dialog.close();
      if (answer === "save") {
        var name = "Edits of " + new Date().toLocaleString();
        if (!saveDraft(name, currentValues())) { return; }
      }
      if (answer === "save" || answer === "open") { location.href = href; }
    };
    ["save", "open", "cancel"].forEach(function (answer) {
      document.getElementById("leave-" + answer).onclick = function () { finish(answer); };
    });
    dialog.showModal();
  }

  // --- Files into a pane, the Copy link button, the theme switch ---------------------------------

  var MAX_PANE_FILE = 3 * 1024 * 1024;

  function isScenarioText(text) {
    return /^kind:[ \t]*["']?Scenario["']?[ \t]*(#.*)?$/m.test(text) || /"kind"\s*:\s*"Scenario"/.test(text);
  }

  // A dropped or chosen file: a scenario file fills every pane; any other text goes into the pane.
  function dropFile(file, pane) {
    if (!file) { return; }
    if ((pane && FIELDS.indexOf(pane) < 0) || file.size > MAX_PANE_FILE) {
      importFile(file);
      return;
    }
    file.text().then(function (text) {
      if (isScenarioText(text) || (!pane && !window.APLoading)) {
        importFile(file);
        return;
      }
      if (!pane) {                 // plain manifests: static/loading.js sorts them into the panes by kind
        window.APLoading.importText(text, file.name);
        return;
      }
      setPane(pane, text.replace(/\r\n/g, "\n"));
      var cm = editors[pane];
      if (cm) { cm.focus(); }
      typed();
      var label = document.getElementById("pane-" + pane);
      fileStatus("Loaded " + file.name + " into the " + (label ? label.dataset.label.replace(/ \(YAML\)$/, "") : pane) +
        " pane (Ctrl+Z in the editor undoes it).", true);
    }).catch(function () {
      fileStatus("Could not read " + file.name + ".");
    });
  }

  function setUpPaneFiles() {
    document.querySelectorAll("input[data-load-pane]").forEach(function (input) {
      input.addEventListener("change", function () {
        dropFile(input.files && input.files[0], input.dataset.loadPane);
        input.value = "";
      });
    });
  }

  function setUpCopyLink() {
    var button = document.getElementById("copy-link");
    if (!button) { return; }
    var shown = document.getElementById(button.dataset.copyTarget);
    if (shown && /^\/s\//.test(location.pathname)) {
      shown.value = location.origin + location.pathname;   // the address as this browser reached it
    }
    button.addEventListener("click", function () {
      var input = document.getElementById(button.dataset.copyTarget);
      var status = document.getElementById("copy-status");
      var done = function () { if (status) { status.textContent = "Copied."; } };
      var fallback = function () {
        input.focus();
        input.select();
        var ok = false;
        try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
        if (status) { status.textContent = ok ? "Copied." : "Selected: press Ctrl+C (⌘+C) to copy."; }
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(input.value).then(done, fallback);
      } else {
        fallback();
      }
    });
  }

  function effectiveTheme() {
    var chosen = document.documentElement.getAttribute("data-theme");
    if (chosen === "light" || chosen === "dark") { return chosen; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function setUpTheme() {
    var button = document.getElementById("theme-toggle");
    if (!button) { return; }
    var label = function () {
      var dark = effectiveTheme() === "dark";
      button.textContent = dark ? "Light theme" : "Dark theme";
      button.setAttribute("aria-pressed", dark ? "true" : "false");
      button.title = "Switch to the " + (dark ? "light" : "dark") + " theme (remembered in this browser)";
    };
    label();
    button.addEventListener("click", function () {
      var next = effectiveTheme() === "dark" ? "light" : "dark";
      document.documentElement.setAttribute("data-theme", next);
      try { window.localStorage.setItem("ap:theme", next); } catch (e) { /* not remembered */ }
      label();
    });
    if (window.matchMedia) {
      var media = window.matchMedia("(prefers-color-scheme: dark)");
      if (media.addEventListener) { media.addEventListener("change", label); }
    }
  }

  // What static/loading.js (templates, plain manifests sorted into the panes) uses of the page.
  window.APPage = {
    editor: function (name) { return editors[name] || null; },
    setPane: setPane,
    fileStatus: fileStatus,
    evaluate: evaluate
  };

  document.addEventListener("DOMContentLoaded", function () {
    setUpFiles();
    setUpTheme();
    document.querySelectorAll("textarea[data-editor]").forEach(setUpEditor);
    document.documentElement.classList.add("js");
    showResult();
    if (form()) {
      setUpHistory();
      setUpDrafts();
      setUpPaneFiles();
      setUpCopyLink();
    }
  });

  // Ctrl+Enter or Cmd+Enter anywhere on the page evaluates; the capture phase runs before
  // CodeMirror's own key handling, and preventDefault keeps it from inserting a newline.
  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && form()) {
      event.preventDefault();
      evaluate();
    }
  }, true);

  document.addEventListener("click", function (event) {
    var example = event.target.closest("a[data-example]");
    if (example && form() && isDirty() && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      askBeforeLeaving(example.href, example.textContent.trim());
      return;
    }
    var button = event.target.closest("[data-goto]");
    if (button) { goTo(button.closest("[data-problem]")); }
    var open = event.target.closest("[data-open-case]");
    if (open) { openCase(open); }
    var add = event.target.closest("[data-add-case]");
    if (add) { addCase(add); }
  });

  // After each swap of the result region (results and error responses alike).
  document.addEventListener("htmx:afterSettle", showResult);
  // The history entry is made as soon as the result is in the page (before it settles), so a reload or
  // Back at any moment after finds it.
  document.addEventListener("htmx:afterSwap", function (event) {
    // (htmx may report a swap more than once, for the target and for the element it put in its place)
    if (awaiting && event.detail && event.detail.target && event.detail.target.id === "result") {
      awaiting = false;
      evaluated();
    }
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    var path = event.detail && event.detail.requestConfig && event.detail.requestConfig.path;
    if (event.detail.elt === form() && path === form().getAttribute("hx-post")) {
      submitted = currentValues();
      awaiting = true;
      userAsked = record;
      requestGeneration = generation;
    }
  });
  // An answer that arrives after Back or Forward showed another entry is not shown.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.elt === form() && requestGeneration !== generation) {
      event.detail.shouldSwap = false;
    }
  });
}());
