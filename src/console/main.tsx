// The console's entry: its stylesheet (uPlot's beside ours, bundled into one file) and the app, mounted on the page
// in place of its loading line.
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
