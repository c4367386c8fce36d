/**
 * The standalone viewer page (index.html): the viewer is the whole page, its state is the address
 * (`?store=URL&t=...`, params.js), and a host frame can drive it through the embed API.
 * @module
 */
import { findElement } from '../lib/dom.js';
import { runViewer } from './app.js';
import { readParams } from './params.js';
import { viewerMarkup } from './markup.js';

const root = findElement(document, '#viewer', HTMLElement);
root.innerHTML = viewerMarkup('', true);
runViewer(root, readParams(location.search), { page: true, prefix: '', fullViewer: new URL('./', document.baseURI).href });
