/** The links between the pages of one area (studio, administration, operations). */
import { useLocation } from 'preact-iso';

export function SubNav(props: { label: string; links: readonly (readonly [href: string, text: string])[] }) {
  const { path } = useLocation();
  return (
    <nav class="sub-nav" aria-label={props.label}>
      {props.links.map(([href, text]) => (
        <a key={href} href={href} aria-current={path === href ? 'page' : undefined}>
          {text}
        </a>
      ))}
    </nav>
  );
}
