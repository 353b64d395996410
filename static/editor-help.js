// Editors that help: completion (Ctrl+Space, and while a key or an expression's member is typed), the
// documentation of the field under the pointer (or at the cursor with Ctrl+Shift+Space), problems marked
// as the panes are typed, and CEL highlighted inside expression fields.
// Every answer comes from the playground's own API (docs/api.md): /api/v1/complete, /api/v1/hover and
// /api/v1/lint, which read the schemas the playground bundles; nothing is evaluated while typing.
// Set up for each editor as CodeMirror creates it (an init hook), so app.js needs no change.
(function () {
  "use strict";

  if (typeof CodeMirror === "undefined") { return; }

  var PANES = ["policy", "binding", "params", "object", "oldObject", "namespace", "request"];
  var LINT_DELAY = 600;     // ms after the last change before the panes are checked
  var HOVER_DELAY = 350;    // ms the pointer rests on a key before its documentation shows
  var editors = {};         // pane name -> CodeMirror instance (the panes the API reads)
  var problems = [];        // the last problems the API found
  var lintTimer = null;
  var lintSent = null;      // the body of the check under way
  var tooltip = null;
  var hoverTimer = null;
  var announcer = null;

  function paneOf(cm) {
    var textarea = cm.getTextArea && cm.getTextArea();
    return textarea ? textarea.dataset.editor : null;
  }

  function body() {
    var payload = {};
    PANES.forEach(function (name) {
      if (editors[name]) { payload[name] = editors[name].getValue(); }
    });
    var version = document.getElementById("kubernetes-version");
    if (version && version.value) { payload.kubernetesVersion = version.value; }
    return payload;
  }

  function post(path, payload) {
    return fetch(path, {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(payload),
      credentials: "same-origin"
    }).then(function (response) {
      return response.ok ? response.json() : null;
    }).catch(function () { return null; });
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function firstParagraph(text) {
    var paragraph = (text || "").split(/\n\s*\n/)[0];
    return paragraph.length > 600 ? paragraph.slice(0, 600) + "…" : paragraph;
  }

  // Screen readers hear the documentation asked for with the keyboard.
  function announce(text) {
    if (!announcer) {
      announcer = element("div", "visually-hidden");
      announcer.setAttribute("aria-live", "polite");
      announcer.id = "editor-help-announcer";
      document.body.appendChild(announcer);
    }
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = text; }, 50);
  }

  // ----------------------------------------------------------------------------------------
  // Completion

  function hint(cm, callback) {
    var pane = paneOf(cm);
    var cursor = cm.getCursor();
    var payload = body();
    payload.pane = pane;
    payload.line = cursor.line + 1;
    payload.column = cursor.ch + 1;
    post("/api/v1/complete", payload).then(function (answer) {
      if (!answer || !answer.items || !answer.items.length) { callback(null); return; }
      var line = answer.line - 1;
      var data = {
        from: CodeMirror.Pos(line, answer.from - 1),
        to: CodeMirror.Pos(line, answer.to - 1),
        list: answer.items.map(function (item) {
          return {text: item.text, displayText: item.label, item: item, render: renderItem};
        })
      };
      CodeMirror.on(data, "select", function (completion, node) { showItemDoc(completion.item, node); });
      CodeMirror.on(data, "close", hideItemDoc);
      callback(data);
    });
  }
  hint.async = true;

  function renderItem(parent, data, completion) {
    parent.appendChild(element("span", "hint-label", completion.displayText));
    if (completion.item.type) {
      parent.appendChild(element("span", "hint-type", completion.item.type));
    }
  }

  var itemDoc = null;

  function showItemDoc(item, node) {
    hideItemDoc();
    if (!item || !item.description) { return; }
    var list = node && node.parentNode;
    if (!list) { return; }
    itemDoc = element("div", "hint-doc");
    itemDoc.id = "hint-doc";
    itemDoc.appendChild(element("strong", null, item.label));
    if (item.type) { itemDoc.appendChild(element("span", "hint-doc-type", " " + item.type)); }
    itemDoc.appendChild(element("p", null, firstParagraph(item.description)));
    var box = list.getBoundingClientRect();
    itemDoc.style.left = (box.right + window.pageXOffset + 4) + "px";
    itemDoc.style.top = (box.top + window.pageYOffset) + "px";
    document.body.appendChild(itemDoc);
    if (box.right + 4 + itemDoc.offsetWidth > document.documentElement.clientWidth) {
      itemDoc.style.left = Math.max(box.left + window.pageXOffset - itemDoc.offsetWidth - 4, 0) + "px";
    }
    node.setAttribute("aria-describedby", "hint-doc");
  }

  function hideItemDoc() {
    if (itemDoc && itemDoc.parentNode) { itemDoc.parentNode.removeChild(itemDoc); }
    itemDoc = null;
  }

  function complete(cm) {
    cm.showHint({hint: hint, completeSingle: false, closeCharacters: /[\s()\[\]{};:>,]/});
  }

  // While typing: a key at the start of a line, or a member after "." in an expression.
  var TYPING_KEY = /^\s*(?:-\s+)*[A-Za-z][\w-]*$/;
  var TYPING_MEMBER = /[A-Za-z_\]]\.\w*$/;

  function onInput(cm, change) {
    if (change.origin !== "+input" || cm.state.completionActive) { return; }
    var typed = change.text.join("");
    if (!/^[\w.]$/.test(typed)) { return; }
    var cursor = cm.getCursor();
    var before = cm.getLine(cursor.line).slice(0, cursor.ch);
    if (TYPING_KEY.test(before) || TYPING_MEMBER.test(before)) { complete(cm); }
  }

  // ----------------------------------------------------------------------------------------
  // Hover: the documentation of a field

  function hideTooltip() {
    window.clearTimeout(hoverTimer);
    if (tooltip && tooltip.parentNode) { tooltip.parentNode.removeChild(tooltip); }
    tooltip = null;
  }

  function explainAt(cm, pos, place) {
    var payload = body();
    payload.pane = paneOf(cm);
    payload.line = pos.line + 1;
    payload.column = pos.ch + 1;
    var generation = cm.changeGeneration();
    return post("/api/v1/hover", payload).then(function (found) {
      if (!found || cm.changeGeneration() !== generation) { return null; }
      hideTooltip();
      tooltip = element("div", "field-doc");
      tooltip.setAttribute("role", "tooltip");
      tooltip.id = "field-doc";
      tooltip.appendChild(element("code", "field-doc-path", found.path));
      tooltip.appendChild(element("span", "field-doc-type", " <" + found.type + ">"));
      tooltip.appendChild(element("p", null, firstParagraph(found.description) || "(no description)"));
      if (found.enum && found.enum.length) {
        tooltip.appendChild(element("p", "field-doc-enum", "One of: " + found.enum.join(", ")));
      }
      var at = cm.charCoords(CodeMirror.Pos(found.line - 1, found.from - 1), "page");
      tooltip.style.left = at.left + "px";
      tooltip.style.top = (at.bottom + 4) + "px";
      document.body.appendChild(tooltip);
      if (place) { place(found); }
      return found;
    });
  }

  function onMouseMove(cm, event) {
    window.clearTimeout(hoverTimer);
    if (tooltip && tooltip.contains(event.target)) { return; }
    var target = event.target;
    if (!target.closest || !target.closest(".CodeMirror-line")) { hideTooltip(); return; }
    var pos = cm.coordsChar({left: event.clientX, top: event.clientY}, "window");
    var token = cm.getTokenAt(CodeMirror.Pos(pos.line, pos.ch + 1), true);
    // a key, or a root or member inside an expression
    if (!token.type || !/\b(atom|cel-root|cel-field)\b/.test(token.type) || !/\w/.test(token.string)) {
      hideTooltip();
      return;
    }
    hoverTimer = window.setTimeout(function () { explainAt(cm, pos); }, HOVER_DELAY);
  }

  function explainAtCursor(cm) {
    explainAt(cm, cm.getCursor(), function (found) {
      announce(found.path + ", " + found.type + ": " + firstParagraph(found.description));
    }).then(function (found) {
      if (!found) { announce("No documented field at the cursor."); }
    });
  }

  // ----------------------------------------------------------------------------------------
  // Problems as you type

  function scheduleLint() {
    window.clearTimeout(lintTimer);
    lintTimer = window.setTimeout(lintNow, LINT_DELAY);
  }

  function lintNow() {
    var payload = body();
    var text = JSON.stringify(payload);
    if (text === lintSent) { return; }
    lintSent = text;
    post("/api/v1/lint", payload).then(function (answer) {
      if (!answer || lintSent !== text) { return; }
      problems = answer.problems || [];
      Object.keys(editors).forEach(function (name) { editors[name].performLint(); });
    });
  }

  function annotations(text, options, cm) {
    var pane = paneOf(cm);
    var out = [];
    problems.forEach(function (problem) {
      if (problem.pane !== pane || !problem.line) { return; }
      // the token at the problem's column (the last one when the column is past the end), else the line
      var line = Math.min(problem.line - 1, cm.lineCount() - 1);
      var text = cm.getLine(line);
      var from = problem.column ? Math.min(problem.column - 1, text.length - 1) : text.search(/\S/);
      from = Math.max(from, 0);
      var to = text.length;
      var token = problem.column ? cm.getTokenAt(CodeMirror.Pos(line, from + 1), true) : null;
      if (token && token.end > from && token.string.trim()) { to = token.end; }
      out.push({
        from: CodeMirror.Pos(line, from),
        to: CodeMirror.Pos(line, Math.max(to, from + 1)),
        message: problem.message,
        severity: problem.severity === "warning" ? "warning" : "error"
      });
    });
    return out;
  }

  // ----------------------------------------------------------------------------------------
  // CEL inside expression fields: an overlay over the YAML mode

  var CEL_KEY = /^(\s*(?:-\s+)*)(expression|messageExpression|valueExpression)(\s*:\s*)(.*)$/;
  var CEL_ROOTS = /^(object|oldObject|params|request|variables|namespaceObject|authorizer)\b/;
  var CEL_WORDS = /^(true|false|null|in)\b/;

  var celOverlay = {
    startState: function () { return {block: -1, from: -1, to: -1}; },
    copyState: function (s) { return {block: s.block, from: s.from, to: s.to}; },
    blankLine: function () {},
    token: function (stream, state) {
      if (stream.sol()) { startLine(stream, state); }
      if (state.from < 0 || stream.pos < state.from) {
        if (state.from < 0) { stream.skipToEnd(); } else { stream.pos = state.from; }
        return null;
      }
      if (state.to >= 0 && stream.pos >= state.to) { stream.skipToEnd(); return null; }
      return celToken(stream);
    }
  };

  function startLine(stream, state) {
    var line = stream.string;
    var indent = line.search(/\S/);
    state.from = -1;
    state.to = -1;
    if (state.block >= 0) {
      if (indent < 0 || indent > state.block) { state.from = Math.max(indent, 0); return; }
      state.block = -1;
    }
    var match = CEL_KEY.exec(line);
    if (!match) { return; }
    var value = match[4];
    var start = match[1].length + match[2].length + match[3].length;
    if (/^[|>][0-9+-]*\s*(#.*)?$/.test(value)) { state.block = match[1].length; return; }
    if (!value) { return; }
    var quote = value.charAt(0);
    if (quote === "\"" || quote === "'") {
      state.from = start + 1;
      var last = line.replace(/\s+$/, "");
      state.to = last.length > start + 1 && last.charAt(last.length - 1) === quote ? last.length - 1 : -1;
    } else {
      state.from = start;
    }
  }

  function celToken(stream) {
    if (stream.eatSpace()) { return null; }
    var ch = stream.peek();
    if (ch === "\"" || ch === "'") {
      stream.next();
      while (!stream.eol()) {
        var next = stream.next();
        if (next === "\\") { stream.next(); } else if (next === ch) { break; }
      }
      return "cel cel-string";
    }
    if (stream.match(/^\d+(\.\d+)?(u)?/)) { return "cel cel-number"; }
    if (stream.match(CEL_ROOTS)) { return "cel cel-root"; }
    if (stream.match(CEL_WORDS)) { return "cel cel-keyword"; }
    if (stream.match(/^[A-Za-z_]\w*(?=\s*\()/)) { return "cel cel-function"; }
    if (stream.match(/^[A-Za-z_]\w*/)) { return "cel cel-field"; }
    if (stream.match(/^(&&|\|\||==|!=|<=|>=|[<>!?:+\-*\/%])/)) { return "cel cel-operator"; }
    stream.next();
    return "cel";
  }

  // YAML, with CEL picked out in expression fields (the overlay keeps state across lines: block scalars).
  // The styles are combined: the YAML mode's stay (closebrackets reads "string" to skip a closing quote).
  CodeMirror.defineMode("yaml-cel", function (config) {
    return CodeMirror.overlayMode(CodeMirror.getMode(config, "yaml"), celOverlay, true);
  });

  // ----------------------------------------------------------------------------------------
  // Each editor, as CodeMirror makes it

  CodeMirror.defineInitHook(function (cm) {
    var pane = paneOf(cm);
    if (PANES.indexOf(pane) < 0) { return; }  // the Test cases pane has no schema
    editors[pane] = cm;
    cm.setOption("mode", "yaml-cel");
    cm.setOption("gutters", (cm.getOption("gutters") || []).concat(["CodeMirror-lint-markers"]));
    cm.setOption("lint", {getAnnotations: annotations, lintOnChange: false, tooltips: true});
    cm.addKeyMap(CodeMirror.normalizeKeyMap({
      "Ctrl-Space": complete,
      "Cmd-Space": complete,
      "Ctrl-Shift-Space": explainAtCursor,
      "Esc": function () {
        hideTooltip();
        return CodeMirror.Pass;
      }
    }));
    cm.on("inputRead", onInput);
    cm.on("change", function () { hideTooltip(); scheduleLint(); });
    cm.on("blur", hideTooltip);
    cm.getWrapperElement().addEventListener("mousemove", function (event) { onMouseMove(cm, event); });
    cm.getWrapperElement().addEventListener("mouseleave", function () {
      window.clearTimeout(hoverTimer);
      window.setTimeout(function () {
        if (tooltip && !tooltip.matches(":hover")) { hideTooltip(); }
      }, 200);
    });
    // No check on load: the page comes with its evaluation's problems marked; panes put back later change.
  });

  document.addEventListener("change", function (event) {
    if (event.target && event.target.id === "kubernetes-version") { scheduleLint(); }
  });
  document.addEventListener("scroll", hideTooltip, true);
})();
