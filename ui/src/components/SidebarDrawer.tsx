import { useEffect, useRef, type ReactNode } from "react";
import { useReturnFocus } from "../hooks/useReturnFocus";

interface SidebarDrawerProps {
  /** A narrow window: the sidebar opens over the chat, else it is docked as it is. */
  drawer: boolean;
  onClose: () => void;
  children: ReactNode;
}

/** The session sidebar, docked, or in a narrow window a drawer over the chat. */
export function SidebarDrawer({ drawer, onClose, children }: SidebarDrawerProps) {
  return drawer ? <Drawer onClose={onClose}>{children}</Drawer> : <>{children}</>;
}

/**
 * The drawer: it takes focus (its search field, to type at once), Escape or a click beside it
 * closes it, and focus goes back to what opened it (the header's Sessions button).
 */
function Drawer({ onClose, children }: Omit<SidebarDrawerProps, "drawer">) {
  const box = useRef<HTMLDivElement>(null);
  useReturnFocus(box);
  useEffect(() => {
    const node = box.current;
    (node?.querySelector<HTMLElement>("input[type=search], input") ?? node?.querySelector<HTMLElement>("button"))?.focus();
  }, []);
  return (
    <>
      <div className="drawer-scrim" data-testid="sidebar-scrim" aria-hidden="true" onMouseDown={onClose} />
      <div
        ref={box}
        className="sidebar-drawer"
        data-testid="sidebar-drawer"
        onKeyDown={(event) => {
          // A menu or dialog inside handles its own Escape first (and stops it).
          if (event.key === "Escape" && !event.defaultPrevented) {
            event.stopPropagation();
            onClose();
          }
        }}
      >
        {children}
      </div>
    </>
  );
}
