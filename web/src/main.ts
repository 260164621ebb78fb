// Entry point of every page.
import 'katex/dist/katex.min.css';
import './katex-compat.css'; // the build-time typesetter's class names (see the file)
import './styles.css';
import { initShell } from './shell';
import { initChapter } from './chapter';
import { initHome } from './home';
import { upgradeLabs } from './labs/registry';
import { upgradeFigures } from './figures/registry';
import { focusableOverflow } from './overflow';
import { registerOffline } from './offline/register';

document.documentElement.classList.add('js');
initShell();
const article = document.querySelector<HTMLElement>('article.chapter');
if (article) initChapter(article);
const home = document.querySelector<HTMLElement>('.home');
if (home) initHome(home);
upgradeLabs();
upgradeFigures();
registerOffline();

focusableOverflow();
window.addEventListener('resize', () => focusableOverflow());
document.addEventListener('sl-step-shown', () => focusableOverflow());
document.addEventListener('toggle', () => focusableOverflow(), true); // details opened
