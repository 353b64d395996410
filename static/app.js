// Admission Playground page behaviour: code editors over the form's textareas,
// the Ctrl/Cmd+Enter shortcut, and problem markers in the editors.
// The form stays the state: every editor writes its text back to its textarea on change.
(function () {
  "use strict";

  var editors = {};        // pane name -> CodeMirror instance
  var markers = [];        // cleanup functions for the current problem markers

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
    cm.on("change", function () { cm.save(); });
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

  function evaluate() {
    var f = form();
    if (!f) { return; }
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
    var f = form();
    Object.keys(editors).forEach(function (name) { editors[name].save(); });
    var fields = new URLSearchParams();
    new FormData(f).forEach(function (value, key) {
      if (typeof value === "string") { fields.append(key, value); }
    });
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
      link.download = "scenario.yaml";
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
        importFile(input.files && input.files[0]);
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
      importFile(event.dataTransfer.files[0]);
    }, true);
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpFiles();
    document.querySelectorAll("textarea[data-editor]").forEach(setUpEditor);
    document.documentElement.classList.add("js");
    showResult();
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
    var button = event.target.closest("[data-goto]");
    if (button) { goTo(button.closest("[data-problem]")); }
    var open = event.target.closest("[data-open-case]");
    if (open) { openCase(open); }
    var add = event.target.closest("[data-add-case]");
    if (add) { addCase(add); }
  });

  // After each swap of the result region (results and error responses alike).
  document.addEventListener("htmx:afterSettle", showResult);
}());
