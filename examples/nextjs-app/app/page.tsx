import { Chat } from "./chat";

export default function Page() {
  return (
    <main>
      <h1>Ask the model</h1>
      <Chat />
    </main>
  );
}
