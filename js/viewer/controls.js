/**
 * The bar's and the transport's selects and buttons: products (buttons, and a select on narrow
 * screens), the single band, the playback speed; and what they show when the state changes.
 * fillControls puts the store's products and bands in the bar as soon as the store is open, before
 * the canvas is measured and its WebGL context made: the bar's height is then final (it wraps at
 * narrow widths), so the drawing buffer is sized once (a resize waits on the GPU process).
 * @module
 */

/**
 * The store's products and bands in the bar, the initial product's look, and the store's name.
 * @param {object} o
 * @param {ReturnType<typeof import('../lib/dom.js').idLookup>} o.$ the viewer's element by id
 * @param {{ id: string, name: string, available: boolean }[]} o.products
 * @param {readonly { name: string, common_name?: string | null }[]} o.bands
 * @param {string} o.product the product shown first
 * @param {string} o.storeName
 */
export function fillControls({ $, products, bands, product, storeName }) {
  const buttons = $('product-buttons');
  const select = $('product-select', HTMLSelectElement);
  for (const p of products) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = p.name;
    b.dataset.product = p.id;
    b.disabled = !p.available;
    if (!p.available) b.title = `${p.name} needs bands this store does not have`;
    buttons.append(b);
    select.append(new Option(p.name + (p.available ? '' : ' (unavailable)'), p.id));
    select.options[select.options.length - 1].disabled = !p.available;
  }
  const bandSelect = $('band-select', HTMLSelectElement);
  bands.forEach((b, i) => bandSelect.append(new Option(b.common_name && b.common_name !== b.name ? `${b.name} (${b.common_name})` : b.name, String(i))));
  showProduct($, product);
  $('store-name').textContent = storeName;
}

/**
 * Mark the product on screen (and show the band list for the band product).
 * @param {ReturnType<typeof import('../lib/dom.js').idLookup>} $ @param {string} id
 */
function showProduct($, id) {
  for (const b of $('product-buttons').querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.product === id));
  $('product-select', HTMLSelectElement).value = id;
  $('band-field').hidden = id !== 'band';
}

/**
 * The controls' listeners (on what fillControls put in the bar) and what they show when the state changes.
 * @param {object} o
 * @param {ReturnType<typeof import('../lib/dom.js').idLookup>} o.$ the viewer's element by id
 * @param {{ speed: number, toggle: () => void }} o.playback
 * @param {(id: string) => void} o.onProduct
 * @param {(band: number) => void} o.onBand a band picked in the list (it switches to the band product)
 */
export function createControls({ $, playback, onProduct, onBand }) {
  const select = $('product-select', HTMLSelectElement);
  for (const b of $('product-buttons').querySelectorAll('button')) b.addEventListener('click', () => onProduct(b.dataset.product ?? ''));
  select.addEventListener('change', () => onProduct(select.value));
  const bandSelect = $('band-select', HTMLSelectElement);
  bandSelect.addEventListener('change', () => onBand(Number(bandSelect.value)));
  const speed = $('speed', HTMLSelectElement); // its options come with the markup
  speed.value = String(playback.speed);
  speed.addEventListener('change', () => (playback.speed = Number(speed.value)));
  $('play').addEventListener('click', () => playback.toggle());
  return {
    /** The product on screen (and whether the band list shows). @param {string} id */
    product: (id) => showProduct($, id),
    /** @param {number} i */
    band(i) {
      bandSelect.value = String(i);
    },
    /** @param {number} s */
    speed(s) {
      speed.value = String(s);
    },
  };
}
