/**
 * The dashboard's only script, served from the app (the CSP allows scripts from 'self' only).
 * Progressive enhancement: copy buttons start hidden and appear only when this runs; every action
 * also works without it.
 */
export const CLIENT_SCRIPT = `
(function () {
  'use strict';
  // Each button's own label is kept before anything changes it: "Copied" comes back to it, however often it is clicked.
  var buttons = document.querySelectorAll('[data-copy]');
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].setAttribute('data-label', buttons[i].textContent);
    buttons[i].hidden = false;
  }
  var restoring = new WeakMap();

  function fallbackCopy(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    try { document.execCommand('copy'); } finally { document.body.removeChild(area); }
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('[data-copy]');
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    var text = 'value' in source && source.tagName === 'INPUT' ? source.value : source.textContent;
    var done = function () {
      button.textContent = 'Copied';
      button.setAttribute('aria-live', 'polite');
      // A second click within the delay starts it again: the first one's timer would cut "Copied" short.
      clearTimeout(restoring.get(button));
      restoring.set(button, setTimeout(function () { button.textContent = button.getAttribute('data-label'); }, 1800));
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  });

  var keyField = document.querySelector('input[data-select-on-focus]');
  if (keyField) keyField.addEventListener('focus', function () { keyField.select(); });
})();
`;
